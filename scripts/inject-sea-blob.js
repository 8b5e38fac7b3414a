// Step 3 of build:binary: the blob into a copy of Node, with postject (what Node's single-executable
// documentation uses; Node 20 has no `--build-sea`).
//
// postject is LIEF compiled to WebAssembly. On an ELF it writes the blob as a note in a new PT_NOTE
// segment, and LIEF's builder gives each note it lays out there a section (`.note`, or `.note.<type>`
// for a type it has no name for) without putting that name in .shstrtab: it warns "Can't find string
// offset for section name" once per such section, and the section is left nameless. Nothing reads a
// section name of the executable (Node finds its blob by the note's name, in the segment), and Node's
// own developers called it a harmless LIEF warning (nodejs/node#45038, nodejs/postject#83). The
// blob's note gives one (`.note`), always. A Node built with annobin (its .gnu.build.attributes
// section of GNU build-attribute notes, type 0x100, as the NodeSource build here has) gives eight
// more (`.note.100`): LIEF carries some of those notes into the new segment too. Removing that
// section first (objcopy) would spare those eight, but needs binutils for a warning about nothing,
// and cannot spare the blob's own. So the known line is dropped, exactly, and every other passes.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The fuse Node's single-executable support looks for (postject flips its `:0` to `:1`). */
export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** LIEF's warning for a note section it laid out without a name: `.note`, or `.note.` and the note type in hex. */
const SECTION_NAME_WARNING = /^warning: Can't find string offset for section name '\.note(?:\.[0-9a-f]+)?'$/;

/**
 * Runs `run` with LIEF's section-name warnings held back. postject's WebAssembly prints its stderr
 * through console.warn, one call per line, taken when postject loads its module (in every inject
 * call): swapping console.warn around the call is the one way in, as postject takes no printErr.
 */
export async function withoutLiefSectionNameWarnings(run) {
  const warn = console.warn;
  console.warn = (...args) => {
    if (args.length === 1 && typeof args[0] === 'string' && SECTION_NAME_WARNING.test(args[0])) return;
    warn.apply(console, args);
  };
  try {
    return await run();
  } finally {
    console.warn = warn;
  }
}

/** Puts the blob file into the executable as NODE_SEA_BLOB and flips its fuse. */
export async function injectSeaBlob(binary, blob) {
  const { inject } = require('postject');
  await withoutLiefSectionNameWarnings(() => inject(binary, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE }));
}
