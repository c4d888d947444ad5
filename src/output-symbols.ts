// How a value describes its own output, for the executor to read and any layer to offer
// (the desk API's reads do): well-known symbols, so neither side imports the other.

/** A mime bundle (or a method returning one) for the value, as Deno's kernel and others agree. */
export const JUPYTER_DISPLAY = Symbol.for("Jupyter.display");

/** Output metadata (or a method returning it) for the value when it is a cell's result. */
export const OUTPUT_METADATA = Symbol.for("deskbook.outputMetadata");
