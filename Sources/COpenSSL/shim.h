/// OpenSSL's libcrypto: SHA-256 digests (EVP) for uploads, outputs and ETags, HMAC for later use.
#ifndef MEDIAD_COPENSSL_SHIM_H
#define MEDIAD_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#endif
