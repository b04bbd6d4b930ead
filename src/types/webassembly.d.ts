// The WebAssembly JavaScript API as Node provides it. TypeScript ships these declarations only with the
// DOM and WebWorker libraries, which would bring browser globals into a Node project.
declare namespace WebAssembly {
  type ImportExportKind = 'function' | 'table' | 'memory' | 'global' | 'tag';
  interface ModuleImportDescriptor {
    module: string;
    name: string;
    kind: ImportExportKind;
  }
  interface ModuleExportDescriptor {
    name: string;
    kind: ImportExportKind;
  }
  type Module = object;
  var Module: {
    prototype: Module;
    new (bytes: BufferSource): Module;
    imports(module: Module): ModuleImportDescriptor[];
    exports(module: Module): ModuleExportDescriptor[];
    customSections(module: Module, sectionName: string): ArrayBuffer[];
  };
  interface MemoryDescriptor {
    initial: number;
    maximum?: number;
    shared?: boolean;
  }
  interface Memory {
    readonly buffer: ArrayBuffer;
    grow(delta: number): number;
  }
  var Memory: { prototype: Memory; new (descriptor: MemoryDescriptor): Memory };
  interface Instance {
    readonly exports: Record<string, unknown>;
  }
  var Instance: {
    prototype: Instance;
    new (module: Module, imports?: Record<string, Record<string, unknown>>): Instance;
  };
  interface WebAssemblyInstantiatedSource {
    module: Module;
    instance: Instance;
  }
  function validate(bytes: BufferSource): boolean;
  function compile(bytes: BufferSource): Promise<Module>;
  function instantiate(module: Module, imports?: Record<string, Record<string, unknown>>): Promise<Instance>;
  class CompileError extends Error {}
  class LinkError extends Error {}
  class RuntimeError extends Error {}
}
