// The web process's entry point (npm run web, the Procfile's `web`).
import { runWebProcess } from './web.process.ts';

await runWebProcess();
