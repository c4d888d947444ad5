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
  /** A copy owned by the caller: the next read reuses the segment. */
  data: Buffer;
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

  /** A reader of images up to `size` bytes, or null where shared memory does not work (remote display, no /dev/shm, old server). */
  static async open(display: string, size: number): Promise<ShmScreenReader | null> {
    const raw = await new Promise<Client | null>((resolve) => {
      const client = x11.createClient({ display }, (err) => resolve(err ? null : client));
      client.on("error", () => resolve(null));
    });
    if (!raw) return null;
    const segment = await attach(raw, size);
    if (!segment) {
      raw.terminate();
      return null;
    }
    return new ShmScreenReader(raw, raw.display.screen[0]!.root, segment);
  }

  get usable(): boolean {
    return !this.ended;
  }

  /** ZPixmap pixels of a root-window rectangle; the caller keeps width × height × 4 within the segment. */
  read(x: number, y: number, width: number, height: number): Promise<ShmImage> {
    const next = this.turn.then(() => this.readNow(x, y, width, height));
    this.turn = next.catch(() => undefined);
    return next;
  }

  fits(width: number, height: number): boolean {
    return width * height * 4 <= this.segment.size;
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
          else resolve({ depth: reply.depth, data: Buffer.from(this.segment.buffer.subarray(0, reply.size)) });
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
