/**
 * motionmatch browser demo: a crowd of motion-matched characters.
 * See docs/browser-demo.md for the controls, the debug views and the automation handle.
 */
import './style.css';
import { App } from './src/app.js';

App.start().catch((e: unknown) => {
  // App.start already showed the message on the page; keep the details in the console for bug reports.
  console.warn('motionmatch demo failed to start:', e);
});
