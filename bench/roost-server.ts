// Roost as users run it (SQLite in a temporary data directory), with one signed-in user.
import { startBenchRoost } from './roost-setup.js';

const { url, token } = await startBenchRoost();
process.send?.({ url, token });
