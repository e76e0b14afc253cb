export { openDatabase, type DatabaseOptions, type OpenDatabase } from './open-database.js';
