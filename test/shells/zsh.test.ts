import { shellCompletionSuite } from '../helpers/completion-cases.js';

shellCompletionSuite('zsh');
