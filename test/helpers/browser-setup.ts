/**
 * Runs once per `vitest run` (second globalSetup): ONE Chromium for every browser test file, started
 * lazily. Nothing is launched here; a tiny HTTP "broker" on 127.0.0.1 is provided to the test files
 * as `chromiumBroker`. The first file that asks for a browser (launchChromium in demo-browser.ts)
 * GETs it: the broker then launches Debian's Chromium with playwright-core's
 * `chromium.launchServer` in this (the main) process and answers every request with the server's
 * websocket endpoint; each file connects to it and opens its own pages (each page its own context,
 * so files stay isolated). A run without browser files never launches Chromium. A failed launch is
 * answered with HTTP 500 and the error, which launchChromium throws with a clear message.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM } from './demo-browser.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** http://127.0.0.1:PORT/ of the broker: GET it for the shared Chromium's ws endpoint. */
    chromiumBroker: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!HAVE_CHROMIUM) return undefined;
  let server: import('playwright-core').BrowserServer | undefined;
  let launching: Promise<string> | undefined;
  const endpoint = (): Promise<string> => {
    launching ??= (async () => {
      const { chromium } = await import('playwright-core');
      server = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
      return server.wsEndpoint();
    })();
    return launching;
  };
  const broker: Server = createServer((_req, res) => {
    endpoint().then(
      (ws) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(ws); },
      (e: unknown) => { res.writeHead(500, { 'content-type': 'text/plain' }); res.end(`could not launch ${CHROMIUM} for the browser tests: ${e instanceof Error ? e.stack ?? e.message : String(e)}`); },
    );
  });
  await new Promise<void>((resolve, reject) => { broker.once('error', reject); broker.listen(0, '127.0.0.1', () => resolve()); });
  broker.unref();
  project.provide('chromiumBroker', `http://127.0.0.1:${(broker.address() as AddressInfo).port}/`);
  return async () => {
    await new Promise<void>((r) => broker.close(() => r()));
    await launching?.catch(() => undefined);
    await server?.close();
  };
}
