export { main } from './main.js';
export { parseCommand, UsageError, HELP, type Command, type Target } from './parse-command.js';
export { runCommand } from './run-command.js';
