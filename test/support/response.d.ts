// Tests read answers as loosely typed JSON and assert their shape with expect; this keeps them short.
export {};

declare global {
  interface Response {
    // biome-ignore lint/suspicious/noExplicitAny: test answers are checked by assertions, not types
    json(): Promise<any>;
  }
}
