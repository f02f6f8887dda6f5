#ifndef CCRC32C_H
#define CCRC32C_H

// Hardware CRC-32C (Castagnoli) for EventJournal's CRC32C: SSE 4.2's crc32 instruction on
// x86_64 and the ARMv8 CRC extension on arm64. Swift cannot call these instructions itself, and
// it cannot compile one function for an instruction set the rest of the binary does not assume,
// so they live here, each in a function built for its target and called only after a runtime
// check says the processor has it.

#include <stddef.h>
#include <stdint.h>

/// Whether this processor computes CRC-32C in hardware: 1 when it does, 0 when callers must use
/// the software table. Cheap, but meant to be asked once.
int ccrc32c_hardware_available(void);

/// The CRC-32C of the bytes checksummed as `previous` (0 for none) followed by `count` bytes at
/// `bytes`, computed with the processor's CRC instructions. Call only when
/// `ccrc32c_hardware_available()` returned 1: on another processor it is an illegal instruction.
uint32_t ccrc32c_hardware_extend(uint32_t previous, const void *bytes, size_t count);

#endif
