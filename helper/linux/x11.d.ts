// The slice of the untyped `x11` package (4.2.x) that x11-client.ts uses. Only the typed
// facade in x11-client.ts imports this module; nothing else should.

declare module "x11" {
  namespace x11 {
    /**
     * Request callback. Returning true from an error callback marks the error as handled;
     * otherwise the client also emits it as an 'error' event.
     */
    export type Callback<T> = (err: Error | null | undefined, result: T) => boolean | void;

    export interface Screen {
      root: number;
      pixel_width: number;
      pixel_height: number;
      root_depth: number;
    }

    export interface Display {
      screen: Screen[];
      min_keycode: number;
      max_keycode: number;
      /** 0 = LSBFirst, 1 = MSBFirst. */
      image_byte_order: number;
      format: Record<number, { bits_per_pixel: number; scanline_pad: number }>;
    }

    export interface RawProperty {
      type: number;
      format: number;
      bytesAfter: number;
      data: Buffer;
    }

    export interface RawGeometry {
      depth: number;
      xPos: number;
      yPos: number;
      width: number;
      height: number;
      borderWidth: number;
    }

    export interface RawTranslate {
      sameScreen: number;
      child: number;
      destX: number;
      destY: number;
    }

    export interface RawWindowAttributes {
      mapState: number;
      overrideRedirect: number;
      /** The event mask this connection selected on the window. */
      myEventMasks: number;
    }

    export interface RawImage {
      depth: number;
      visualId: number;
      data: Buffer;
    }

    export interface RawPointer {
      root: number;
      child: number;
      rootX: number;
      rootY: number;
      keyMask: number;
    }

    export interface RawEvent {
      type: number;
      name?: string;
      /** XI2 GenericEvent type (RawKeyPress = 13 …). */
      evtype?: number;
      /** Major opcode of the extension that sent a GenericEvent. */
      extension?: number;
      deviceId?: number;
      sourceId?: number;
      detail?: number;
      time?: number;
      flags?: number;
      /** MappingNotify: 0 modifier, 1 keyboard, 2 pointer. */
      request?: number;
      /** Core events: the window the event is about (ConfigureNotify, PropertyNotify, DestroyNotify …). */
      wid?: number;
      /** PropertyNotify: the property that changed. */
      atom?: number;
      /** ClientMessage: the type's atom, and the data items. */
      message_type?: number;
      data?: number[];
    }

    export interface XTestExt {
      KeyPress: number;
      KeyRelease: number;
      ButtonPress: number;
      ButtonRelease: number;
      MotionNotify: number;
      FakeInput(type: number, detail: number, time: number, wid: number, x: number, y: number): void;
    }

    export interface XIDevice {
      deviceId: number;
      use: number;
      attachment: number;
      enabled: number;
      name: string;
    }

    export interface XInputExt {
      majorOpcode: number;
      AllDevices: number;
      AllMasterDevices: number;
      EventType: Record<string, number>;
      EventMask: Record<string, number>;
      xi2: { majorVersion: number; minorVersion: number } | null;
      XIQueryDevice(deviceId: number, cb: Callback<XIDevice[]>): void;
      XISelectEvents(window: number, masks: { deviceId: number; mask: number }): void;
    }

    export interface ShmImageReply {
      depth: number;
      visual: number;
      /** Bytes written into the segment. */
      size: number;
    }

    /** A shared-memory segment attached to the server (the package's high-level MIT-SHM API). */
    export interface ShmSegment {
      shmseg: number;
      size: number;
      /** Where getImage's pixels land (a copy of the segment, with the built-in provider). */
      buffer: Buffer;
      getImage(
        drawable: number,
        x: number,
        y: number,
        width: number,
        height: number,
        planeMask: number,
        format: number | undefined,
        offset: number,
        cb: Callback<ShmImageReply>,
      ): void;
      detach(cb?: () => void): void;
    }

    export interface ShmExt {
      /** Attaches a scratch segment and round-trips once: whether shared memory really works here. */
      usable(cb: (err: Error | null, ok: boolean) => void): void;
      createSegment(size: number, cb: (err: Error | null, segment: ShmSegment) => void): void;
    }

    export interface ResClientId {
      client: number;
      mask: number;
      /** One pid for LocalClientPID; empty for ClientXID. */
      value: number[];
    }

    /** X-Resource 1.2: which client owns a resource, and that client's pid when it is local. */
    export interface ResExt {
      QueryClientIds(specs: { client: number; mask: number }[], cb: Callback<ResClientId[]>): void;
    }

    export interface ExtensionMap {
      xtest: XTestExt;
      xinput: XInputExt;
      shm: ShmExt;
      res: ResExt;
    }

    export interface Client {
      display: Display;
      /** The client's atom cache (name → id), filled by InternAtom answers. */
      atoms: Record<string, number>;
      /** Its reverse (id → name), filled by InternAtom and GetAtomName answers. */
      atom_names: Record<number, string>;
      on(event: "event", listener: (ev: RawEvent) => void): this;
      on(event: "error", listener: (err: Error) => void): this;
      on(event: "end", listener: () => void): this;
      removeListener(event: "event", listener: (ev: RawEvent) => void): this;
      listenerCount(event: "event"): number;
      require<K extends keyof ExtensionMap>(name: K, cb: (err: Error | null, ext: ExtensionMap[K]) => void): void;
      close(cb?: (err?: Error) => void): void;
      terminate(): void;
      sync(cb: (err: Error | null) => void): void;
      InternAtom(onlyIfExists: boolean, name: string, cb: Callback<number>): void;
      GetAtomName(atom: number, cb: Callback<string>): void;
      GetProperty(
        del: number,
        wid: number,
        name: number,
        type: number,
        longOffset: number,
        longLength: number,
        cb: Callback<RawProperty>,
      ): void;
      GetGeometry(drawable: number, cb: Callback<RawGeometry>): void;
      GetWindowAttributes(wid: number, cb: Callback<RawWindowAttributes>): void;
      /** Void request (only `eventMask` is used here); with a callback, it hears back once applied. */
      ChangeWindowAttributes(wid: number, values: { eventMask: number }, cb: Callback<void>): void;
      TranslateCoordinates(src: number, dst: number, x: number, y: number, cb: Callback<RawTranslate>): void;
      GetImage(
        format: number,
        drawable: number,
        x: number,
        y: number,
        width: number,
        height: number,
        planeMask: number,
        cb: Callback<RawImage>,
      ): void;
      QueryPointer(wid: number, cb: Callback<RawPointer>): void;
      GetKeyboardMapping(first: number, count: number, cb: Callback<number[][]>): void;
      /** Void request: with a callback, it hears back once the server processed it (or failed it). */
      ChangeKeyboardMapping(first: number, keysymsPerKeycode: number, keysyms: number[], cb: Callback<void>): void;
      AllocID(): number;
      /** Void requests (no callback here): sync() tells when they are done. */
      CreateWindow(
        id: number,
        parent: number,
        x: number,
        y: number,
        width: number,
        height: number,
        border: number,
        depth: number,
        windowClass: number,
        visual: number,
        values: { eventMask: number },
      ): void;
      DestroyWindow(id: number): void;
      SendClientMessage(
        destination: number,
        wid: number,
        messageType: number,
        format: number,
        data: number[],
        cb: Callback<void>,
      ): void;
      SendClientMessage(
        destination: number,
        wid: number,
        messageType: number,
        format: number,
        data: number[],
        eventMask: number,
        cb: Callback<void>,
      ): void;
    }

    export interface CreateOptions {
      display?: string;
      /** false: plain socket, no MIT-SHM descriptor passing. */
      shm?: boolean;
      /** The cookie to send, instead of looking one up in the file XAUTHORITY names. */
      auth?: { name: string; data: string };
    }
    /** keysymdef.h: "XK_Return" → { code: 0xff0d, description: "Return, enter" }; descriptions
     * of character keysyms start with the character in parentheses: "(€) EURO SIGN". */
    export const keySyms: Record<string, { code: number; description: string | null } | number>;
    export function createClient(options: CreateOptions, cb: (err: Error | undefined, display: Display) => void): Client;
  }
  export = x11;
}
