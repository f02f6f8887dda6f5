#include "CCRC32C.h"

#include <string.h>

#if defined(__x86_64__)

#include <nmmintrin.h>

int ccrc32c_hardware_available(void) {
    // SSE 4.2 brought the crc32 instruction (Nehalem, 2008; every x86_64 Apple ever sold).
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

// Built for SSE 4.2 alone, so the rest of the binary keeps the baseline x86_64 instruction set.
__attribute__((target("sse4.2")))
uint32_t ccrc32c_hardware_extend(uint32_t previous, const void *bytes, size_t count) {
    const uint8_t *next = (const uint8_t *)bytes;
    uint64_t crc = (uint32_t)~previous;
    // Single bytes until the 8-byte loads are aligned: an unaligned load that crosses a cache
    // line costs more than the few single-byte steps.
    while (count > 0 && ((uintptr_t)next & 7) != 0) {
        crc = _mm_crc32_u8((uint32_t)crc, *next);
        next += 1;
        count -= 1;
    }
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, next, sizeof word);  // Aligned here; memcpy keeps the load well-defined C.
        crc = _mm_crc32_u64(crc, word);
        next += 8;
        count -= 8;
    }
    while (count > 0) {
        crc = _mm_crc32_u8((uint32_t)crc, *next);
        next += 1;
        count -= 1;
    }
    return ~(uint32_t)crc;
}

#elif defined(__aarch64__)

#include <arm_acle.h>
#if defined(__linux__)
#include <sys/auxv.h>
#endif

int ccrc32c_hardware_available(void) {
#if defined(__APPLE__)
    // Every arm64 Apple processor has the ARMv8 CRC extension.
    return 1;
#elif defined(__linux__)
    // HWCAP_CRC32 is bit 7 of AT_HWCAP on arm64 Linux (arch/arm64/include/uapi/asm/hwcap.h);
    // spelt out so the check does not depend on which kernel headers are installed.
    const unsigned long hwcapCRC32 = 1UL << 7;
    return (getauxval(AT_HWCAP) & hwcapCRC32) != 0 ? 1 : 0;
#else
    return 0;
#endif
}

// Built for the CRC extension alone, so the rest of the binary keeps the baseline ARMv8.
__attribute__((target("crc")))
uint32_t ccrc32c_hardware_extend(uint32_t previous, const void *bytes, size_t count) {
    const uint8_t *next = (const uint8_t *)bytes;
    uint32_t crc = ~previous;
    while (count > 0 && ((uintptr_t)next & 7) != 0) {
        crc = __crc32cb(crc, *next);
        next += 1;
        count -= 1;
    }
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, next, sizeof word);
        crc = __crc32cd(crc, word);
        next += 8;
        count -= 8;
    }
    while (count > 0) {
        crc = __crc32cb(crc, *next);
        next += 1;
        count -= 1;
    }
    return ~crc;
}

#else

// No CRC instructions known for this architecture: the software table is used.
int ccrc32c_hardware_available(void) {
    return 0;
}

uint32_t ccrc32c_hardware_extend(uint32_t previous, const void *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return previous;
}

#endif
