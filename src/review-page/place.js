// @ts-check
/**
 * Where the page is: the URL's fragment names the document shown
 * (`#doc=<result id, encoded>`), so a reload, the back button or a shared
 * link opens that one. The id comes from whoever wrote the link: it is only
 * ever sent to the server as a query value (which confines it to the results
 * folder) and shown as text.
 */

const KEY = 'doc';

/** The document the URL names, or undefined. */
export function idInUrl() {
  // URLSearchParams decodes what placeInUrl encoded (and a hand-typed link's escapes).
  return new URLSearchParams(window.location.hash.slice(1)).get(KEY) || undefined;
}

/**
 * Names the document shown in the URL: a new history entry when the person moved to it, else in place.
 * @param {string} id
 * @param {'push' | 'replace'} how
 */
export function placeInUrl(id, how) {
  if (idInUrl() === id) return;
  const hash = `#${KEY}=${encodeURIComponent(id)}`;
  if (how === 'push') window.history.pushState(null, '', hash);
  else window.history.replaceState(null, '', hash);
}

/**
 * Calls back with the document the URL names when the back or forward button, or an edited link, changes it.
 * @param {(id: string | undefined) => void} listener
 */
export function onPlaceChange(listener) {
  // Back and forward between fragments fire both events; the listener ignores the document already shown.
  window.addEventListener('popstate', () => listener(idInUrl()));
  window.addEventListener('hashchange', () => listener(idInUrl()));
}
