// Roost as users run it (SQLite in a temporary data directory), with one signed-in user.
import { startBenchRoost } from './roost-setup.js';

process.send?.(await startBenchRoost());
