/**
 * The page's document viewer (viewer.js): PDF pages drawn into canvases by
 * pdf.js (served from the package, worker included), images as they are,
 * and a plain note when the source file is gone.
 */
export const VIEWER_JS = String.raw`
var pdfjs;

async function loadPdfjs() {
  if (!pdfjs) {
    pdfjs = await import('./pdfjs/build/pdf.min.mjs');
    pdfjs.GlobalWorkerOptions.workerSrc = new URL('pdfjs/build/pdf.worker.min.mjs', location.href).href;
  }
  return pdfjs;
}

function note(container, text, kind) {
  var p = document.createElement('p');
  p.className = 'note ' + (kind || '');
  p.setAttribute('role', 'note');
  p.textContent = text;
  container.appendChild(p);
}

/** Shows the document of view in container; isCurrent() turns false once another document is chosen. */
export async function renderSource(container, view, isCurrent) {
  var url = 'source?id=' + encodeURIComponent(view.id);
  if (view.source_kind === 'missing') {
    note(container, 'The source file is gone: ' + view.source + ' is no longer there.' + (view.error ? '' : ' Its fields can still be reviewed.'), 'gone');
    return;
  }
  if (view.source_kind === 'image') {
    var img = document.createElement('img');
    img.src = url;
    img.alt = 'the document ' + view.source;
    container.appendChild(img);
    return;
  }
  if (view.source_kind !== 'pdf') {
    note(container, 'This kind of file cannot be shown here: ' + view.source);
    return;
  }
  try {
    var lib = await loadPdfjs();
    var base = new URL('pdfjs/', location.href).href;
    var pdf = await lib.getDocument({ url: url, isEvalSupported: false, standardFontDataUrl: base + 'standard_fonts/', cMapUrl: base + 'cmaps/', cMapPacked: true, wasmUrl: base + 'wasm/' }).promise;
    var ratio = window.devicePixelRatio || 1;
    for (var number = 1; number <= Math.min(pdf.numPages, 100) && isCurrent(); number++) {
      var page = await pdf.getPage(number);
      var width = Math.max(300, container.clientWidth - 32);
      var scale = Math.min(2, width / page.getViewport({ scale: 1 }).width);
      var viewport = page.getViewport({ scale: scale * ratio });
      var canvas = document.createElement('canvas');
      canvas.width = Math.floor(viewport.width);
      canvas.height = Math.floor(viewport.height);
      canvas.style.width = Math.floor(viewport.width / ratio) + 'px';
      canvas.setAttribute('role', 'img');
      canvas.setAttribute('aria-label', 'page ' + number + ' of ' + pdf.numPages);
      canvas.dataset.page = String(number);
      container.appendChild(canvas);
      await page.render({ canvas: canvas, canvasContext: canvas.getContext('2d'), viewport: viewport }).promise;
      canvas.dataset.rendered = 'true';
    }
  } catch (error) {
    note(container, 'The PDF could not be shown: ' + (error && error.message ? error.message : String(error)), 'gone');
  }
}
`;
