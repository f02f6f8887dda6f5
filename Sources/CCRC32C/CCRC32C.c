#include "CCRC32C.h"

#include <string.h>

#if defined(__x86_64__)

#include <nmmintrin.h>
#include <pthread.h>

int ccrc32c_hardware_available(void) {
    // SSE 4.2 brought the crc32 instruction (Nehalem, 2008; every x86_64 Apple ever sold).
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

// Three streams of `stream_bytes` each, checksummed at once: the crc32 instruction takes three
// cycles to give its result but can start one every cycle, so one stream leaves two thirds of
// it idle. The three registers are then combined, since CRC is linear over GF(2): the register
// after A·B·C equals the register after A moved over 2n zero bytes, xor the one after B (from
// zero) moved over n, xor the one after C (from zero).
enum { stream_bytes = 128 };

// shift_tables[s][k][b]: the register b << 8k moved over (s + 1) * stream_bytes zero bytes.
// Moving is linear, so a register moves as the xor of its four bytes' entries.
static uint32_t shift_tables[2][4][256];
static pthread_once_t shift_tables_once = PTHREAD_ONCE_INIT;

__attribute__((target("sse4.2")))
static uint32_t over_zeros(uint32_t reg, size_t count) {
    uint64_t crc = reg;
    for (size_t i = 0; i < count; i += 8) {
        crc = _mm_crc32_u64(crc, 0);
    }
    return (uint32_t)crc;
}

static void make_shift_tables(void) {
    for (int s = 0; s < 2; s++) {
        for (int k = 0; k < 4; k++) {
            for (uint32_t b = 0; b < 256; b++) {
                shift_tables[s][k][b] = over_zeros(b << (8 * k), (size_t)(s + 1) * stream_bytes);
            }
        }
    }
}

static inline uint32_t shifted(int s, uint64_t reg) {
    return shift_tables[s][0][reg & 0xFF] ^ shift_tables[s][1][(reg >> 8) & 0xFF]
        ^ shift_tables[s][2][(reg >> 16) & 0xFF] ^ shift_tables[s][3][(reg >> 24) & 0xFF];
}

static inline uint64_t load64(const uint8_t *bytes) {
    uint64_t word;
    memcpy(&word, bytes, sizeof word);  // memcpy keeps the load well-defined C.
    return word;
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
    if (count >= 3 * stream_bytes) {
        pthread_once(&shift_tables_once, make_shift_tables);
        while (count >= 3 * stream_bytes) {
            uint64_t first = crc, second = 0, third = 0;
            for (size_t i = 0; i < stream_bytes; i += 8) {
                first = _mm_crc32_u64(first, load64(next + i));
                second = _mm_crc32_u64(second, load64(next + stream_bytes + i));
                third = _mm_crc32_u64(third, load64(next + 2 * stream_bytes + i));
            }
            crc = shifted(1, first) ^ shifted(0, second) ^ (uint32_t)third;
            next += 3 * stream_bytes;
            count -= 3 * stream_bytes;
        }
    }
    while (count >= 8) {
        crc = _mm_crc32_u64(crc, load64(next));
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
