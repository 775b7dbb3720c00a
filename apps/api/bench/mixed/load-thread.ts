/** Worker-thread entry: runs one instance of the mix (mix.ts) and posts its output back. */
import { parentPort, workerData } from "node:worker_threads";
import { type MixInput, runMix } from "./mix.ts";

parentPort?.postMessage(await runMix(workerData as MixInput));
