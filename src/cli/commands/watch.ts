import { addBatchFlags, settingFlag } from '../batch-flags.js';
import type { CommandRegistration } from '../command.js';
import { addObjectStorageFlags } from '../batch-flags.js';

export const registerWatchCommand: CommandRegistration = (program, action) => {
  addBatchFlags(
    addObjectStorageFlags(
      program
        .command('watch')
        .description('a hot folder: extract each PDF or image dropped into <folder> (and its subfolders) once it is completely written')
        .argument('<folder>', 'the folder to watch, or s3://bucket/prefix/; files already in it are taken first'),
    ),
  )
    .option('--verbose', 'list each file that a summary line counts (the files a Ctrl-C left unstarted)')
    .option(...settingFlag('settle'))
    .option(...settingFlag('rescan'))
    .option('--poll <interval>', 'look for changes every <interval> instead of waiting for change events (network shares, container mounts)')
    .option('--move-done <dir>', 'move each source here, keeping its path below <folder>, once its complete result is saved')
    .option('--move-failed <dir>', 'move each source here once it failed for good (refused, unreadable by the service) or came back partial')
    .option('--max-credits <n>', 'stop taking files before this many credits would be spent')
    .option('--retry-failed', 'retry a synchronous extraction_failed once (it is charged again)')
    .option('--force', 'extract every file again, whatever results are on disk')
    .option('--no-dedupe', 'pay for each copy of identical files')
    .addHelpText(
      'after',
      '\nNever taken: hidden files and folders, *.part, *.crdownload, *.tmp, ~$*, Thumbs.db, and files\nthat are not .pdf, .jpg, .jpeg or .png. An s3:// folder is listed every --poll (default 60s) and each new\nobject (key and ETag) taken once; --move-done and --move-failed are s3:// folders then.\nCtrl-C or SIGTERM finishes the requests in flight and exits 130; the next watch resumes open jobs without uploading again, and takes what arrived meanwhile.\n\nExamples:\n  docextract watch ./inbox --move-done ./inbox-done --move-failed ./inbox-failed\n  docextract watch /mnt/share/scans --poll 10s --settle 10s --json | jq -c .\n  docextract watch s3://scans/inbox/ --out s3://results/ --move-done s3://scans/done/',
    )
    .action(action(() => import('../run/watch.js').then((m) => m.runWatch)));
};
