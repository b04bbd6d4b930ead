// Why a module is refused. The codes are the upload's details.code (docs/catalogue.md), plus too_large,
// which the api answers as 413 payload_too_large rather than as a validation error, and the platform's
// bounds on what sizes an instance: table_too_large and instance_too_large (docs/module-contract.md).

export type ModuleRefusalCode =
  | 'not_wasm'
  | 'invalid_module'
  | 'forbidden_import'
  | 'imported_memory'
  | 'missing_export'
  | 'too_large'
  | 'table_too_large'
  | 'instance_too_large';

export interface ModuleRefusal {
  ok: false;
  code: ModuleRefusalCode;
  message: string;
}

export const refuse = (code: ModuleRefusalCode, message: string): ModuleRefusal => ({
  ok: false,
  code,
  message,
});
