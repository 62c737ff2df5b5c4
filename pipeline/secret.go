package pipeline

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
)

// SecretKeyLength is the length in bytes of a SecretKey: AES-256.
const SecretKeyLength = 32

// Errors of secret keys, for errors.Is.
var (
	// ErrSecretKeyFormat: what was given for a key is not one.
	ErrSecretKeyFormat = errors.New("a secret key is 32 bytes, written as 64 hexadecimal digits or in base64 (openssl rand -base64 32)")
	// ErrSecretUnreadable: a sealed secret was sealed under another key,
	// or altered.
	ErrSecretUnreadable = errors.New("pipeline: the secret cannot be decrypted with this server's secret key")
	// ErrNoSecretKey: a delivery is to be signed by a server that has no
	// key to open its webhook's secret with.
	ErrNoSecretKey = errors.New("the server has no secret key to sign with")
)

// SecretKey encrypts the secrets the server must read back, webhook signing
// secrets, before they are stored: AES-256-GCM with a random nonce per
// secret. Kept in the operator's configuration, apart from the database, it
// leaves the database holding nothing that signs a delivery.
type SecretKey struct {
	aead     cipher.AEAD
	previous []*SecretKey // open what they sealed; see WithPrevious
}

// WithPrevious returns a key that seals as k does and opens what k or any
// of previous sealed: for a server whose key changed, so that secrets
// stored under the old one are still read.
func (k *SecretKey) WithPrevious(previous ...*SecretKey) *SecretKey {
	return &SecretKey{aead: k.aead, previous: append(slices.Clip(k.previous), previous...)}
}

// ParseSecretKey reads a key written as 64 hexadecimal digits or as the
// standard or URL base64 of 32 bytes (as `openssl rand -base64 32` prints).
func ParseSecretKey(s string) (*SecretKey, error) {
	s = strings.TrimSpace(s)
	var raw []byte
	var err error
	switch {
	case len(s) == 2*SecretKeyLength:
		raw, err = hex.DecodeString(s)
	default:
		raw, err = base64.StdEncoding.DecodeString(s)
		if err != nil {
			raw, err = base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
		}
	}
	if err != nil || len(raw) != SecretKeyLength {
		return nil, ErrSecretKeyFormat
	}
	return NewSecretKey(raw)
}

// NewSecretKey returns the key of 32 raw bytes.
func NewSecretKey(raw []byte) (*SecretKey, error) {
	if len(raw) != SecretKeyLength {
		return nil, ErrSecretKeyFormat
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &SecretKey{aead: aead}, nil
}

// secretAAD binds sealed values to their use, so that a value sealed for
// something else one day cannot be passed off as a webhook secret.
var secretAAD = []byte("pipeline webhook secret v1")

// seal encrypts plain: the nonce, then the ciphertext and its tag.
func (k *SecretKey) seal(plain []byte) []byte {
	nonce := make([]byte, k.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return k.aead.Seal(nonce, nonce, plain, secretAAD)
}

// open decrypts what seal made; a value sealed under another key, or
// altered, is an error.
func (k *SecretKey) open(sealed []byte) ([]byte, error) {
	n := k.aead.NonceSize()
	if len(sealed) < n {
		return nil, ErrSecretUnreadable
	}
	plain, err := k.aead.Open(nil, sealed[:n], sealed[n:], secretAAD)
	if err == nil {
		return plain, nil
	}
	for _, p := range k.previous {
		if plain, err := p.open(sealed); err == nil {
			return plain, nil
		}
	}
	return nil, ErrSecretUnreadable
}

// KeyKeeper keeps a secret key beside the data, for servers whose
// operator gives none: package pipelinestore keeps it in the database.
type KeyKeeper interface {
	// StoredSecretKey returns the raw key kept, or nil when there is none;
	// with create, one is made first when there is none, and every
	// replica then reads the same.
	StoredSecretKey(ctx context.Context, create bool) ([]byte, error)
}

// ServerSecretKey returns the key a server seals webhook secrets with.
// With a configured key, it is that key, which also opens the secrets
// sealed before it was configured under the key keeper kept. Without one,
// it is the key keeper keeps, made on first use; kept then reports that
// the key lies with the secrets it guards, which a copy of the database
// would hold together, so that the server can warn its operator.
func ServerSecretKey(ctx context.Context, configured *SecretKey, keeper KeyKeeper) (key *SecretKey, kept bool, err error) {
	raw, err := keeper.StoredSecretKey(ctx, configured == nil)
	if err != nil || raw == nil {
		return configured, false, err
	}
	stored, err := NewSecretKey(raw)
	if err != nil {
		return nil, false, err
	}
	if configured != nil {
		return configured.WithPrevious(stored), false, nil
	}
	return stored, true, nil
}
