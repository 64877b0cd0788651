/** One load run: which requests (see wrk-script.ts), how many connections, how long, paced or flat out. */
export type LoadSpec = {
  /** Origin, e.g. https://127.0.0.1:40123 */
  url: string;
  mode: 'calls' | 'whoami' | 'fixed' | 'outbound';
  /** One request identity per line: `key [assistant…]`. */
  dataFile: string;
  /** `from to` per line (mode calls). */
  windowsFile?: string;
  /** Path of mode fixed. */
  path?: string;
  connections: number;
  threads: number;
  seconds: number;
  /** Total requests per second to pace at; absent = as fast as the server answers. */
  rate?: number;
  /** Prefix of Idempotency-Key and external_id (mode outbound). */
  runId?: string;
};
