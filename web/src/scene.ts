/**
 * Renderer and scene: a ground with a grid that follows the player, soft lights, fog, and an
 * orbiting follow camera (drag to orbit, wheel to zoom). Kept cheap on purpose: no shadows, no
 * post-processing, Lambert materials — software WebGL (SwiftShader) must keep up.
 */
import * as THREE from 'three';
import { wrapAngle } from '../../src/math/angle.js';

export class FollowCamera {
  readonly camera: THREE.PerspectiveCamera;
  /** Yaw (radians, atan2(x, z) convention: 0 looks along +Z) and pitch of the view direction. */
  yaw = 0;
  pitch = 0.32;
  distance = 5.5;
  private readonly target = new THREE.Vector3(0, 1, 0);
  private initialised = false;

  constructor(aspect: number) {
    this.camera = new THREE.PerspectiveCamera(50, aspect, 0.1, 400);
  }

  /** Horizontal forward (x, z) of the view. */
  get forwardX(): number { return Math.sin(this.yaw); }
  get forwardZ(): number { return Math.cos(this.yaw); }

  orbit(dYaw: number, dPitch: number): void {
    this.yaw = wrapAngle(this.yaw + dYaw);
    this.pitch = Math.min(1.3, Math.max(-0.1, this.pitch + dPitch));
  }

  zoom(factor: number): void {
    this.distance = Math.min(60, Math.max(1.5, this.distance * factor));
  }

  /** Follows (x, y, z) with a little lag (frame-rate independent). */
  follow(x: number, y: number, z: number, dt: number): void {
    const k = this.initialised ? 1 - Math.exp(-dt / 0.12) : 1;
    this.initialised = true;
    this.target.x += (x - this.target.x) * k;
    this.target.y += (y + 1.0 - this.target.y) * k;
    this.target.z += (z - this.target.z) * k;
    const cp = Math.cos(this.pitch), sp = Math.sin(this.pitch);
    this.camera.position.set(
      this.target.x - Math.sin(this.yaw) * cp * this.distance,
      this.target.y + sp * this.distance,
      this.target.z - Math.cos(this.yaw) * cp * this.distance,
    );
    this.camera.lookAt(this.target);
    this.camera.updateMatrixWorld();
  }
}

export class SceneView {
  readonly renderer: THREE.WebGLRenderer;
  readonly scene = new THREE.Scene();
  readonly rig: FollowCamera;
  /** True when WebGL runs in software (SwiftShader / llvmpipe): the page then draws less. */
  readonly software: boolean;
  private readonly grid: THREE.GridHelper;
  private readonly ground: THREE.Mesh;

  constructor(readonly canvas: HTMLCanvasElement) {
    this.software = isSoftwareRenderer();
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: !this.software, powerPreference: 'high-performance' });
    this.renderer.setPixelRatio(this.software ? 1 : Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.setClearColor(0x1b1f25);
    this.rig = new FollowCamera(1);

    const sky = new THREE.Color(0x1b1f25);
    this.scene.background = sky;
    this.scene.fog = new THREE.Fog(sky, 40, 140);
    this.scene.add(new THREE.HemisphereLight(0xdfe8ff, 0x3a3328, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.8);
    sun.position.set(4, 10, 6);
    this.scene.add(sun);

    this.ground = new THREE.Mesh(
      new THREE.PlaneGeometry(400, 400),
      new THREE.MeshLambertMaterial({ color: 0x2a3038 }),
    );
    this.ground.rotation.x = -Math.PI / 2;
    this.ground.position.y = -0.002;
    this.scene.add(this.ground);
    this.grid = new THREE.GridHelper(200, 200, 0x56606c, 0x3a424d);
    this.scene.add(this.grid);
    this.resize();
  }

  /** Resolution of the drawing buffer relative to CSS pixels (clamped to [0.25, 2]). */
  setRenderScale(scale: number): void {
    this.renderer.setPixelRatio(Math.min(2, Math.max(0.25, Number(scale) || 1)));
    this.resize();
  }

  resize(): void {
    const w = Math.max(1, this.canvas.clientWidth || window.innerWidth);
    const h = Math.max(1, this.canvas.clientHeight || window.innerHeight);
    this.renderer.setSize(w, h, false);
    this.rig.camera.aspect = w / h;
    this.rig.camera.updateProjectionMatrix();
  }

  /** Shows or hides the flat ground and its grid (hidden while a terrain is drawn instead). */
  setFlatGroundVisible(on: boolean): void {
    this.grid.visible = on;
    this.ground.visible = on;
  }

  /** Keeps the grid and ground under the player (snapped to whole metres so the lines do not swim). */
  centreGround(x: number, z: number): void {
    const gx = Math.round(x), gz = Math.round(z);
    this.grid.position.set(gx, 0, gz);
    this.ground.position.set(gx, -0.002, gz);
  }

  render(): void {
    this.renderer.render(this.scene, this.rig.camera);
  }

  /** Mouse drag orbits the camera, the wheel zooms. */
  attachOrbitControls(): void {
    let dragging = false, lastX = 0, lastY = 0;
    this.canvas.addEventListener('pointerdown', (e) => {
      dragging = true;
      lastX = e.clientX;
      lastY = e.clientY;
      this.canvas.setPointerCapture(e.pointerId);
      this.canvas.focus();
    });
    this.canvas.addEventListener('pointermove', (e) => {
      if (!dragging) return;
      this.rig.orbit(-(e.clientX - lastX) * 0.006, (e.clientY - lastY) * 0.004);
      lastX = e.clientX;
      lastY = e.clientY;
    });
    const stop = (e: PointerEvent): void => {
      dragging = false;
      if (this.canvas.hasPointerCapture(e.pointerId)) this.canvas.releasePointerCapture(e.pointerId);
    };
    this.canvas.addEventListener('pointerup', stop);
    this.canvas.addEventListener('pointercancel', stop);
    this.canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      this.rig.zoom(Math.exp(e.deltaY * 0.001));
    }, { passive: false });
  }
}

function isSoftwareRenderer(): boolean {
  try {
    const gl = document.createElement('canvas').getContext('webgl2');
    if (!gl) return true;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const name = String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    return /swiftshader|llvmpipe|software|basic render/i.test(name);
  } catch {
    return true;
  }
}

