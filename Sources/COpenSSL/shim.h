/// OpenSSL's libcrypto: SHA-256 digests (EVP) for uploads, outputs and ETags, HMAC for later use, and the
/// low-level SHA-256 context (`SHA256_CTX`), whose state between blocks a tus upload spread over replicas
/// carries from one request to the next (`ResumableSHA256`). Those functions are deprecated in 3.0 in
/// favour of EVP, which has no way to export that state; they remain part of the 3.x API.
#ifndef MEDIAD_COPENSSL_SHIM_H
#define MEDIAD_COPENSSL_SHIM_H
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#endif
