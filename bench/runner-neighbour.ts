// The older noisy-neighbour attacks' modules: start code that never ends (on modules the runner has not
// seen before, so every call is a fresh start and asks for warm-ups), and memory grown to its cap. The
// rows themselves are runner-rows.ts's, the attacks runner-attacks.ts's.
import { appModule } from '../test/module/wat.ts';

/** A module whose start code never ends, distinct by an export of its own (a new module each). */
export function slowStartModule(i: number): Uint8Array {
  return appModule({
    exports: ['manifest', 'invoke', `variant_${i}`],
    extra: '(func (export "_initialize") (loop $forever (br $forever)))',
  });
}

/**
 * A module whose invoke grows its memory to its cap a MiB at a time, writes to every 4 KiB page of it
 * (so each is really given to it), then traps: resident memory up to the cap, and the CPU of the faults.
 */
export function memoryBombModule(): Uint8Array {
  return appModule({
    exports: ['manifest'],
    extra: `(func (export "invoke") (result i32) (local $at i32)
      (loop $grow (br_if $grow (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
      (block $done
        (loop $touch
          (br_if $done (i32.ge_u (local.get $at) (i32.mul (memory.size) (i32.const 65536))))
          (i32.store8 (local.get $at) (i32.const 1))
          (local.set $at (i32.add (local.get $at) (i32.const 4096)))
          (br $touch)))
      unreachable)`,
  });
}
