// Screen reads through MIT-SHM: the X server writes the pixels into a shared segment (an
// anonymous /dev/shm file handed over with ShmAttachFd) instead of sending a multi-megabyte
// GetImage reply over the socket, which the client would read in chunks and join.
//
// It has an X connection of its own: the package's descriptor-passing transport changes how
// requests are written, and input (XTEST clicks, drags) must keep the plain socket's timing.

import x11 from "x11";
import type { Client, ShmExt, ShmImageReply, ShmSegment } from "x11";

const Z_PIXMAP = 2;

export interface ShmImage {
  depth: number;
  /**
   * The pixels and one writable spare byte after them, a view of the segment's buffer: valid
   * until the lease is released, when the next read may overwrite it.
   */
  padded: Buffer;
}

export interface ShmLease extends ShmImage {
  /** Lets the next read use the segment; call it once the pixels are no longer read. */
  release(): void;
}

export class ShmScreenReader {
  private turn: Promise<unknown> = Promise.resolve();
  private readonly pending = new Set<(error: Error) => void>();
  private ended = false;

  private constructor(
    private readonly raw: Client,
    private readonly root: number,
    private readonly segment: ShmSegment,
  ) {
    const end = (): void => {
      this.ended = true;
      for (const reject of this.pending) reject(new Error("the MIT-SHM connection to the X server ended"));
      this.pending.clear();
    };
    raw.on("end", end);
    raw.on("error", end);
  }

  /** A reader of images up to `size` bytes (plus the spare byte), or null where shared memory does not work (remote display, no /dev/shm, old server). */
  static async open(display: string, size: number): Promise<ShmScreenReader | null> {
    const raw = await new Promise<Client | null>((resolve) => {
      const client = x11.createClient({ display }, (err) => resolve(err ? null : client));
      client.on("error", () => resolve(null));
    });
    if (!raw) return null;
    const segment = await attach(raw, size + 1);
    if (!segment) {
      raw.terminate();
      return null;
    }
    return new ShmScreenReader(raw, raw.display.screen[0]!.root, segment);
  }

  get usable(): boolean {
    return !this.ended;
  }

  /**
   * ZPixmap pixels of a root-window rectangle, read in place: no copy of a few megabytes per
   * screenshot for the garbage collector to chase. The next read waits for the release. The
   * caller keeps width × height × 4 within the segment (fits).
   */
  lease(x: number, y: number, width: number, height: number): Promise<ShmLease> {
    const image = this.turn.then(() => this.readNow(x, y, width, height));
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.turn = image.then(
      () => released,
      () => undefined,
    );
    return image.then((read) => ({ ...read, release }));
  }

  fits(width: number, height: number): boolean {
    // The segment has one byte more than a whole screen: the spare byte after the pixels.
    return width * height * 4 < this.segment.size;
  }

  close(): void {
    this.ended = true;
    this.raw.terminate();
  }

  private readNow(x: number, y: number, width: number, height: number): Promise<ShmImage> {
    return new Promise((resolve, reject) => {
      if (this.ended) return reject(new Error("the MIT-SHM connection to the X server ended"));
      this.pending.add(reject);
      try {
        this.segment.getImage(this.root, x, y, width, height, 0xffffffff, Z_PIXMAP, 0, (err: Error | null | undefined, reply: ShmImageReply) => {
          this.pending.delete(reject);
          if (err) reject(err);
          else resolve({ depth: reply.depth, padded: this.segment.buffer.subarray(0, reply.size + 1) });
          return true; // handled: not re-emitted as 'error'
        });
      } catch (error) {
        // The package threw while writing the request: this connection's stream is no longer trusted.
        this.pending.delete(reject);
        this.close();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }
}

async function attach(raw: Client, size: number): Promise<ShmSegment | null> {
  const shm = await new Promise<ShmExt | null>((resolve) => {
    try {
      raw.require("shm", (err, ext) => resolve(err ? null : ext));
    } catch {
      resolve(null);
    }
  });
  if (!shm) return null;
  // Present is not enough: a server may advertise MIT-SHM and refuse every attach.
  const usable = await new Promise<boolean>((resolve) => shm.usable((_err, ok) => resolve(ok)));
  if (!usable) return null;
  return new Promise<ShmSegment | null>((resolve) => shm.createSegment(size, (err, segment) => resolve(err ? null : segment)));
}

/** A copy of `pixels` with one more byte at the end (see ShmImage.padded), in one allocation. */
export function withSpareByte(pixels: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(pixels.length + 1);
  out.set(pixels);
  out[pixels.length] = 0;
  return out;
}
