// The worker process's entry point (npm run worker, the Procfile's `worker`).
import { runWorkerProcess } from './worker.process.ts';

await runWorkerProcess();
