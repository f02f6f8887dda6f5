#ifndef CAESGCM_H
#define CAESGCM_H

// AES-256-GCM with a key schedule set up once per data key (decision 0017). swift-crypto's
// `AES.GCM.seal` sets up the key and the GHASH tables again at every call and returns its output
// in new `Data` buffers; a store seals every value it writes. These functions call the BoringSSL
// that swift-crypto already links on Linux, Android and Windows, writing into the caller's
// buffer. Where swift-crypto uses CryptoKit instead (Apple platforms), BoringSSL is not linked:
// `caesgcm_available` answers 0 and callers keep using swift-crypto.

#include <stddef.h>
#include <stdint.h>

/// A 256-bit key with its AES key schedule and GHASH tables, made once and then used by any
/// number of threads at once (sealing and opening only read it).
typedef struct caesgcm_key caesgcm_key;

/// The bytes of a nonce, and of a tag.
#define CAESGCM_NONCE_BYTES 12
#define CAESGCM_TAG_BYTES 16

/// 1 when this build links an implementation, 0 when callers must use swift-crypto.
int caesgcm_available(void);

/// The key schedule of the 32 bytes at `key`, or NULL when no implementation is linked or the
/// key is not 32 bytes long. Free it with `caesgcm_key_free`.
caesgcm_key *caesgcm_key_new(const uint8_t *key, size_t key_length);

/// Frees a key made by `caesgcm_key_new` and clears its schedule. NULL is allowed.
void caesgcm_key_free(caesgcm_key *key);

/// Seals `plaintext_length` bytes: writes the ciphertext (as long as the plaintext) and then
/// the tag to `out`, which has room for `plaintext_length + CAESGCM_TAG_BYTES` bytes and does
/// not overlap the input. The `additional` bytes are authenticated, not written. 1 on success.
int caesgcm_seal(
    const caesgcm_key *key, uint8_t *out, const uint8_t *nonce, const uint8_t *plaintext, size_t plaintext_length,
    const uint8_t *additional, size_t additional_length);

/// Opens `sealed_length` bytes of ciphertext and tag: writes `sealed_length - CAESGCM_TAG_BYTES`
/// bytes of plaintext to `out` and answers 1 when the tag authenticates the ciphertext with
/// `additional`; answers 0, with `out` cleared, when it does not or the input is shorter than a
/// tag.
int caesgcm_open(
    const caesgcm_key *key, uint8_t *out, const uint8_t *nonce, const uint8_t *sealed, size_t sealed_length,
    const uint8_t *additional, size_t additional_length);

#endif
