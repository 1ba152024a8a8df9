/** Stops the server that global setup started (nothing for DATABASE_URL). */
export default async function globalTeardown(): Promise<void> {
  await globalThis.__scanIndexerTestServer?.stop();
  globalThis.__scanIndexerTestServer = undefined;
}
