/** `watch` riding along on the command that holds the state folder: its arrivals submitted as they settle (see library/engine.ts). Its own module: only `watch` loads the hot folder. */
export { watchThroughHost } from '../features/host/watch-client.js';
