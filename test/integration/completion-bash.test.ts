import { shellCompletionSuite } from '../helpers/completion-cases.js';

// Bash is always here; zsh and fish run the same cases in `npm run test:shells` (test/shells/).
shellCompletionSuite('bash');
