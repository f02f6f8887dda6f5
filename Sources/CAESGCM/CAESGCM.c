#include "CAESGCM.h"

#include <string.h>

#if defined(__APPLE__)

// swift-crypto uses CryptoKit here and links no BoringSSL: callers keep using swift-crypto.

int caesgcm_available(void) { return 0; }

caesgcm_key *caesgcm_key_new(const uint8_t *key, size_t key_length) {
    (void)key;
    (void)key_length;
    return NULL;
}

void caesgcm_key_free(caesgcm_key *key) { (void)key; }

int caesgcm_seal(
    const caesgcm_key *key, uint8_t *out, const uint8_t *nonce, const uint8_t *plaintext, size_t plaintext_length,
    const uint8_t *additional, size_t additional_length) {
    (void)key, (void)out, (void)nonce, (void)plaintext, (void)plaintext_length, (void)additional;
    (void)additional_length;
    return 0;
}

int caesgcm_open(
    const caesgcm_key *key, uint8_t *out, const uint8_t *nonce, const uint8_t *sealed, size_t sealed_length,
    const uint8_t *additional, size_t additional_length) {
    (void)key, (void)out, (void)nonce, (void)sealed, (void)sealed_length, (void)additional;
    (void)additional_length;
    return 0;
}

#else

// BoringSSL's AEAD interface, as swift-crypto's CCryptoBoringSSL target exports it: every symbol
// carries that target's prefix. The target is not a product another package can depend on, so
// its headers are not importable here; these declarations match its `aead.h`. A swift-crypto
// that renamed them fails the link, never a run.
typedef struct evp_aead_st EVP_AEAD;
typedef struct evp_aead_ctx_st EVP_AEAD_CTX;

extern const EVP_AEAD *CCryptoBoringSSL_EVP_aead_aes_256_gcm(void);
extern EVP_AEAD_CTX *CCryptoBoringSSL_EVP_AEAD_CTX_new(
    const EVP_AEAD *aead, const uint8_t *key, size_t key_len, size_t tag_len);
extern void CCryptoBoringSSL_EVP_AEAD_CTX_free(EVP_AEAD_CTX *ctx);
extern int CCryptoBoringSSL_EVP_AEAD_CTX_seal(
    const EVP_AEAD_CTX *ctx, uint8_t *out, size_t *out_len, size_t max_out_len, const uint8_t *nonce,
    size_t nonce_len, const uint8_t *in, size_t in_len, const uint8_t *ad, size_t ad_len);
extern int CCryptoBoringSSL_EVP_AEAD_CTX_open(
    const EVP_AEAD_CTX *ctx, uint8_t *out, size_t *out_len, size_t max_out_len, const uint8_t *nonce,
    size_t nonce_len, const uint8_t *in, size_t in_len, const uint8_t *ad, size_t ad_len);

enum { key_bytes = 32 };

int caesgcm_available(void) { return 1; }

caesgcm_key *caesgcm_key_new(const uint8_t *key, size_t key_length) {
    if (key_length != key_bytes) {
        return NULL;
    }
    // Tag length 0 asks for the AEAD's default, 16 bytes for AES-GCM.
    return (caesgcm_key *)CCryptoBoringSSL_EVP_AEAD_CTX_new(
        CCryptoBoringSSL_EVP_aead_aes_256_gcm(), key, key_length, 0);
}

void caesgcm_key_free(caesgcm_key *key) {
    // BoringSSL clears the schedule before freeing it.
    CCryptoBoringSSL_EVP_AEAD_CTX_free((EVP_AEAD_CTX *)key);
}

int caesgcm_seal(
    const caesgcm_key *key, uint8_t *out, const uint8_t *nonce, const uint8_t *plaintext, size_t plaintext_length,
    const uint8_t *additional, size_t additional_length) {
    size_t written = 0;
    size_t room = plaintext_length + CAESGCM_TAG_BYTES;
    int sealed = CCryptoBoringSSL_EVP_AEAD_CTX_seal(
        (const EVP_AEAD_CTX *)key, out, &written, room, nonce, CAESGCM_NONCE_BYTES, plaintext, plaintext_length,
        additional, additional_length);
    return sealed == 1 && written == room ? 1 : 0;
}

int caesgcm_open(
    const caesgcm_key *key, uint8_t *out, const uint8_t *nonce, const uint8_t *sealed, size_t sealed_length,
    const uint8_t *additional, size_t additional_length) {
    if (sealed_length < CAESGCM_TAG_BYTES) {
        return 0;
    }
    size_t written = 0;
    size_t room = sealed_length - CAESGCM_TAG_BYTES;
    int opened = CCryptoBoringSSL_EVP_AEAD_CTX_open(
        (const EVP_AEAD_CTX *)key, out, &written, room, nonce, CAESGCM_NONCE_BYTES, sealed, sealed_length,
        additional, additional_length);
    if (opened != 1 || written != room) {
        // BoringSSL leaves nothing of an unauthenticated plaintext; clear what it may not have.
        if (room > 0) {
            memset(out, 0, room);
        }
        return 0;
    }
    return 1;
}

#endif
