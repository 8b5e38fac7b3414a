/** `docextract/models`: the model names the service listed, kept per account so completion and typo hints need no request. */
export { readModelNames, rememberModelNames } from '../store/model-names-cache.js';
export { normaliseModel, SERVICE_DEFAULT_MODEL } from '../batch/question.js';
export { checkModelNames, UnknownModelError } from '../engine/check-models.js';
