/** The page's shell; everything it loads comes from this server (see files.ts). */
export const INDEX_HTML = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>docextract review</title>
<link rel="stylesheet" href="app.css">
<link rel="icon" href="data:,">
</head>
<body>
<header>
  <h1>docextract review</h1>
  <span id="folder"></span>
  <span class="keys" aria-hidden="true"><kbd>j</kbd>/<kbd>k</kbd> next/previous · <kbd>Ctrl</kbd>+<kbd>S</kbd> save · <kbd>a</kbd> approve</span>
</header>
<main>
  <nav id="list-pane" aria-label="Documents">
    <div class="filters">
      <label>Type <select id="filter-type"><option value="">all</option></select></label>
      <label>Status <select id="filter-status">
        <option value="">all</option>
        <option value="checks-failed">checks failed</option>
        <option value="partial">partial</option>
        <option value="failed">failed (no result)</option>
        <option value="complete">complete</option>
        <option value="reviewed">reviewed</option>
        <option value="unreviewed">not reviewed</option>
      </select></label>
    </div>
    <p id="count" aria-live="polite"></p>
    <ul id="documents"></ul>
  </nav>
  <section id="document-pane" aria-label="Document">
    <p class="empty">No document chosen.</p>
  </section>
</main>
<p id="status" role="status" aria-live="polite"></p>
<script type="module" src="app.js"></script>
</body>
</html>
`;

export const APP_CSS = String.raw`
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: #1d1d1f; background: #f5f5f7; height: 100vh; display: flex; flex-direction: column; }
header { display: flex; gap: 1rem; align-items: baseline; padding: .5rem 1rem; background: #1d3557; color: #fff; }
header h1 { font-size: 1.1rem; margin: 0; }
header #folder { opacity: .8; font-family: ui-monospace, monospace; font-size: .85rem; }
header .keys { margin-left: auto; font-size: .8rem; opacity: .9; }
kbd { border: 1px solid #aab; border-radius: 3px; padding: 0 .25rem; font-size: .75rem; }
main { flex: 1; display: flex; min-height: 0; }
#list-pane { width: 20rem; border-right: 1px solid #ccd; background: #fff; overflow: auto; }
.filters { display: flex; gap: .5rem; padding: .5rem; border-bottom: 1px solid #eee; position: sticky; top: 0; background: #fff; }
#count { margin: .25rem .5rem; color: #666; font-size: .8rem; }
#documents { list-style: none; margin: 0; padding: 0; }
#documents button { width: 100%; text-align: left; border: 0; border-bottom: 1px solid #eee; background: none; padding: .45rem .6rem; cursor: pointer; font: inherit; }
#documents button[aria-current="true"] { background: #e3ecf7; box-shadow: inset 3px 0 #1d3557; }
#documents .name { display: block; font-weight: 600; overflow-wrap: anywhere; }
.badge { display: inline-block; font-size: .72rem; padding: 0 .35rem; border-radius: 8px; margin-right: .25rem; background: #e8e8ed; }
.badge.checks-failed { background: #fde2e1; color: #a4161a; }
.badge.partial { background: #fff3bf; color: #7a5c00; }
.badge.failed { background: #f3d9fa; color: #6a1b7a; }
.badge.complete { background: #e3f6e8; color: #1b5e20; }
.badge.reviewed { background: #dbe9ff; color: #1d3557; }
#document-pane { flex: 1; display: flex; min-width: 0; }
#document-pane .empty { margin: 2rem; color: #666; }
.viewer { flex: 1; overflow: auto; background: #525659; padding: .75rem; display: flex; flex-direction: column; align-items: center; gap: .75rem; }
.viewer canvas, .viewer img { max-width: 100%; background: #fff; box-shadow: 0 1px 4px rgba(0,0,0,.4); }
.viewer .note { background: #fff; padding: 1rem; border-radius: 4px; max-width: 30rem; }
.viewer .note.gone { border-left: 4px solid #a4161a; }
.fields { flex: 1.3; min-width: 0; overflow: auto; padding: .75rem 1rem; background: #fff; border-left: 1px solid #ccd; }
.fields h2 { font-size: 1rem; margin: 0 0 .25rem; overflow-wrap: anywhere; }
.fields .meta { color: #555; font-size: .8rem; margin: 0 0 .5rem; }
.actions { display: flex; gap: .5rem; position: sticky; top: -.75rem; background: #fff; padding: .5rem 0; z-index: 1; border-bottom: 1px solid #eee; margin-bottom: .5rem; }
.actions button { font: inherit; padding: .3rem .8rem; border-radius: 4px; border: 1px solid #1d3557; background: #fff; cursor: pointer; }
.actions button.primary { background: #1d3557; color: #fff; }
fieldset { border: 1px solid #dde; border-radius: 4px; margin: .5rem 0; padding: .25rem .6rem .5rem; }
legend { font-weight: 600; font-size: .85rem; }
.field { display: grid; grid-template-columns: 10rem 1fr; gap: .5rem; align-items: start; margin: .2rem 0; }
.field label { font-size: .85rem; color: #333; overflow-wrap: anywhere; padding-top: .2rem; }
input { font: inherit; width: 100%; padding: .15rem .3rem; border: 1px solid #bbc; border-radius: 3px; }
input.corrected { background: #fffbe6; }
input[aria-invalid="true"] { border-color: #a4161a; outline: 1px solid #a4161a; }
.problem { color: #a4161a; font-size: .8rem; margin: .1rem 0 .3rem; grid-column: 2; }
table { border-collapse: collapse; width: 100%; margin: .3rem 0; font-size: .85rem; }
caption { text-align: left; font-weight: 600; padding: .2rem 0; }
th, td { border: 1px solid #dde; padding: .15rem; vertical-align: top; }
th { background: #f0f0f5; font-weight: 600; }
td input { border: 0; min-width: 4rem; }
.failure .error { border-left: 4px solid #a4161a; background: #fdf1f0; padding: .5rem .75rem; margin: .5rem 0; border-radius: 3px; }
.failure .error code { font-weight: 600; color: #a4161a; }
.failure .error p { margin: .25rem 0 0; overflow-wrap: anywhere; }
#status { margin: 0; padding: .25rem 1rem; background: #eef; font-size: .85rem; min-height: 1.6rem; }
`;
