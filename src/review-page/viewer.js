// @ts-check
/**
 * The page's document viewer: PDF pages drawn into canvases by pdf.js
 * (served from the package, worker included), images as they are, and a
 * plain note when the source file is gone. It zooms: fit to the pane's
 * width, or a scale the person chose with + and −, kept from one document
 * to the next.
 */

/** @typedef {import('../review/review-model.js').DocumentView | import('../review/review-model.js').FailedDocumentView} AnyView */
/**
 * What the page uses of pdf.js (its own types are not in this program).
 * @typedef {{ width: number, height: number }} Viewport
 * @typedef {{ getViewport(options: { scale: number }): Viewport, render(options: { canvas: HTMLCanvasElement, canvasContext: CanvasRenderingContext2D | null, viewport: Viewport }): { promise: Promise<void> } }} PdfPage
 * @typedef {{ numPages: number, getPage(number: number): Promise<PdfPage> }} PdfDocument
 * @typedef {{ GlobalWorkerOptions: { workerSrc: string }, getDocument(options: Record<string, unknown>): { promise: Promise<PdfDocument> } }} Pdfjs
 */

const STEP = 1.25;
const MIN_SCALE = 0.25;
const MAX_SCALE = 6;
const MAX_PAGES = 100;

/** @type {Pdfjs | undefined} */
let pdfjs;
/** null: fit the pane's width; else CSS pixels per PDF point (1 = 100%). */
let /** @type {number | null} */ zoom = null;
/** The document shown, to draw again at another zoom. */
let /** @type {{ container: HTMLElement, pdf?: PdfDocument, img?: HTMLImageElement, isCurrent: () => boolean } | null} */ shown = null;
let drawing = 0;
/** Told the zoom's words after each change (the toolbar's label). */
let /** @type {(words: string) => void} */ onZoom = () => undefined;

async function loadPdfjs() {
  if (!pdfjs) {
    const url = './pdfjs/build/pdf.min.mjs';
    pdfjs = /** @type {Pdfjs} */ (await import(url));
    pdfjs.GlobalWorkerOptions.workerSrc = new URL('pdfjs/build/pdf.worker.min.mjs', location.href).href;
  }
  return pdfjs;
}

/**
 * @param {HTMLElement} container
 * @param {string} text
 * @param {string} [kind]
 */
function note(container, text, kind) {
  const p = document.createElement('p');
  p.className = `note ${kind ?? ''}`;
  p.setAttribute('role', 'note');
  p.textContent = text;
  container.appendChild(p);
}

/** @param {(words: string) => void} listener */
export function onZoomChange(listener) {
  onZoom = listener;
  listener(zoomWords());
}

function zoomWords() {
  return zoom === null ? 'fit width' : `${Math.round(zoom * 100)}%`;
}

/**
 * + (1), − (-1) or fit width (0).
 * @param {-1 | 0 | 1} direction
 */
export async function setZoom(direction) {
  if (direction === 0) zoom = null;
  else {
    const now = zoom ?? (await fitScale()) ?? 1;
    zoom = Math.min(MAX_SCALE, Math.max(MIN_SCALE, direction > 0 ? now * STEP : now / STEP));
  }
  onZoom(zoomWords());
  await draw();
}

/** The scale at which the first page (or the image) fills the pane's width. */
async function fitScale() {
  if (!shown) return undefined;
  const width = paneWidth(shown.container);
  if (shown.img) return shown.img.naturalWidth > 0 ? width / shown.img.naturalWidth : undefined;
  if (!shown.pdf) return undefined;
  return width / (await shown.pdf.getPage(1)).getViewport({ scale: 1 }).width;
}

/** @param {HTMLElement} container */
function paneWidth(container) {
  return Math.max(200, container.clientWidth - 32);
}

/**
 * Shows the document of view in container; isCurrent() turns false once another document is chosen.
 * @param {HTMLElement} container
 * @param {AnyView} view
 * @param {() => boolean} isCurrent
 */
export async function renderSource(container, view, isCurrent) {
  shown = null;
  const url = `source?id=${encodeURIComponent(view.id)}`;
  if (view.source_kind === 'missing') {
    note(container, `The source file is gone: ${view.source} is no longer there.${view.error ? '' : ' Its fields can still be reviewed.'}`, 'gone');
    return;
  }
  if (view.source_kind === 'image') {
    const img = document.createElement('img');
    img.src = url;
    img.alt = `the document ${view.source}`;
    container.appendChild(img);
    shown = { container, img, isCurrent };
    img.addEventListener('load', () => void draw());
    return;
  }
  if (view.source_kind !== 'pdf') {
    note(container, `This kind of file cannot be shown here: ${view.source}`);
    return;
  }
  try {
    const lib = await loadPdfjs();
    const base = new URL('pdfjs/', location.href).href;
    const pdf = await lib.getDocument({
      url,
      isEvalSupported: false,
      standardFontDataUrl: `${base}standard_fonts/`,
      cMapUrl: `${base}cmaps/`,
      cMapPacked: true,
      wasmUrl: `${base}wasm/`,
    }).promise;
    if (!isCurrent()) return;
    shown = { container, pdf, isCurrent };
    await draw();
  } catch (error) {
    note(container, `The PDF could not be shown: ${error instanceof Error ? error.message : String(error)}`, 'gone');
  }
}

/** Draws the shown document at the zoom; a later call (another zoom, another document) stops an earlier one. */
async function draw() {
  const ticket = ++drawing;
  const target = shown;
  if (!target) return;
  const scale = zoom ?? (await fitScale()) ?? 1;
  target.container.dataset.zoom = zoom === null ? 'fit' : String(zoom);
  if (target.img) {
    target.img.style.width = `${Math.round(target.img.naturalWidth * scale)}px`;
    target.img.dataset.scale = scale.toFixed(3);
    return;
  }
  const pdf = target.pdf;
  if (!pdf) return;
  const ratio = window.devicePixelRatio || 1;
  target.container.querySelectorAll('canvas').forEach((canvas) => canvas.remove());
  for (let number = 1; number <= Math.min(pdf.numPages, MAX_PAGES); number++) {
    if (ticket !== drawing || !target.isCurrent()) return;
    const page = await pdf.getPage(number);
    const viewport = page.getViewport({ scale: scale * ratio });
    const canvas = document.createElement('canvas');
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    canvas.style.width = `${Math.floor(viewport.width / ratio)}px`;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `page ${number} of ${pdf.numPages}`);
    canvas.dataset.page = String(number);
    canvas.dataset.scale = scale.toFixed(3);
    if (ticket !== drawing) return;
    target.container.appendChild(canvas);
    await page.render({ canvas, canvasContext: canvas.getContext('2d'), viewport }).promise;
    canvas.dataset.rendered = 'true';
  }
}
