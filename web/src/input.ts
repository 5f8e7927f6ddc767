/**
 * Player input: keyboard (WASD / arrows move relative to the camera, Shift runs, Q / E strafe)
 * and the first standard gamepad (left stick moves, right stick looks, RT runs, LT strafes, Y is
 * the wave key G). Produces the controller's desired world velocity and facing.
 */
import type { ControllerInput } from '../../src/runtime/controller/controller.js';

export const WALK_SPEED = 1.5;
export const RUN_SPEED = 4.0;
const DEADZONE = 0.18;

export class PlayerInput {
  private readonly down = new Set<string>();
  /** Right-stick look rates (-1..1) for the camera. */
  lookX = 0;
  lookY = 0;
  /** True while the player holds a movement input. */
  active = false;
  /** Keys that are not movement (R, H, G, ...) call this once per press. */
  onKey: ((code: string) => void) | null = null;
  /** The gamepad's Y button last frame (a press is reported once, as the key G). */
  private padWave = false;

  constructor(target: Window = window) {
    target.addEventListener('keydown', (e) => {
      const code = keyCode(e);
      if (isTyping(e.target, code)) return;
      if (MOVEMENT_CODES.has(code)) e.preventDefault();
      if (!this.down.has(code) && !e.repeat) this.onKey?.(code);
      this.down.add(code);
    });
    target.addEventListener('keyup', (e) => this.down.delete(keyCode(e)));
    // Keys released while the page had no focus never send keyup.
    target.addEventListener('blur', () => this.down.clear());
  }

  private held(...codes: string[]): boolean {
    for (const c of codes) if (this.down.has(c)) return true;
    return false;
  }

  /** Fills `out` for a camera looking along yaw `cameraYaw` (radians, atan2(x, z)). */
  read(cameraYaw: number, out: ControllerInput): void {
    // Camera frame on the ground: forward f = (sin, cos), right r = (-cos, sin) (Y up, +X left).
    let fwd = 0, right = 0;
    if (this.held('KeyW', 'ArrowUp')) fwd += 1;
    if (this.held('KeyS', 'ArrowDown')) fwd -= 1;
    if (this.held('KeyD', 'ArrowRight')) right += 1;
    if (this.held('KeyA', 'ArrowLeft')) right -= 1;
    let strafe = false;
    if (this.held('KeyE')) { right += 1; strafe = true; }
    if (this.held('KeyQ')) { right -= 1; strafe = true; }
    let run = this.held('ShiftLeft', 'ShiftRight');
    let magnitude = Math.hypot(fwd, right) > 0 ? 1 : 0;
    if (magnitude > 0) {
      const l = Math.hypot(fwd, right);
      fwd /= l;
      right /= l;
    }
    this.lookX = 0;
    this.lookY = 0;
    const pad = firstGamepad();
    if (pad) {
      const lx = pad.axes[0] ?? 0, ly = pad.axes[1] ?? 0;
      const m = Math.hypot(lx, ly);
      if (m > DEADZONE && magnitude === 0) {
        const k = Math.min(1, (m - DEADZONE) / (1 - DEADZONE)) / m;
        right = lx * k * m;
        fwd = -ly * k * m;
        magnitude = Math.hypot(fwd, right);
        fwd /= magnitude;
        right /= magnitude;
      }
      const rx = pad.axes[2] ?? 0, ry = pad.axes[3] ?? 0;
      this.lookX = Math.abs(rx) > DEADZONE ? rx : 0;
      this.lookY = Math.abs(ry) > DEADZONE ? ry : 0;
      if ((pad.buttons[7]?.value ?? 0) > 0.4 || pad.buttons[5]?.pressed) run = true;
      if ((pad.buttons[6]?.value ?? 0) > 0.4 || pad.buttons[4]?.pressed) strafe = true;
      const wave = pad.buttons[3]?.pressed === true;
      if (wave && !this.padWave) this.onKey?.('KeyG');
      this.padWave = wave;
    }
    const speed = magnitude * (run ? RUN_SPEED : WALK_SPEED);
    const fx = Math.sin(cameraYaw), fz = Math.cos(cameraYaw);
    const rx = -fz, rz = fx;
    out.velocityX = (fwd * fx + right * rx) * speed;
    out.velocityZ = (fwd * fz + right * rz) * speed;
    // Strafing keeps facing the camera's direction; otherwise face where you go.
    out.facing = strafe ? cameraYaw : Number.NaN;
    this.active = speed > 0;
  }
}

const MOVEMENT_CODES = new Set(['KeyW', 'KeyA', 'KeyS', 'KeyD', 'KeyQ', 'KeyE', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight']);

/** The physical key (layout-independent), falling back to the character for old browsers. */
function keyCode(e: KeyboardEvent): string {
  if (e.code) return e.code;
  const k = e.key.length === 1 ? e.key.toUpperCase() : e.key;
  return k.length === 1 ? `Key${k}` : k === 'Shift' ? 'ShiftLeft' : k;
}

/** True when the key belongs to a focused form control (text fields; arrows on sliders and lists). */
function isTyping(target: EventTarget | null, code: string): boolean {
  if (!(target instanceof HTMLElement)) return false;
  const arrow = code.startsWith('Arrow');
  if (target instanceof HTMLInputElement) {
    if (target.type === 'range' || target.type === 'checkbox') return arrow;
    return true;
  }
  if (target instanceof HTMLSelectElement) return arrow;
  return target instanceof HTMLTextAreaElement || target.isContentEditable;
}

function firstGamepad(): Gamepad | null {
  if (typeof navigator === 'undefined' || !navigator.getGamepads) return null;
  for (const p of navigator.getGamepads()) if (p && p.connected && p.mapping === 'standard') return p;
  return null;
}
