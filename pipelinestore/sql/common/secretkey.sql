-- name: CreateSecretKey
INSERT INTO secret_keys (name, key, created_at) VALUES ('webhooks', $1, $2)
ON CONFLICT (name) DO NOTHING;

-- name: SecretKey
SELECT key FROM secret_keys WHERE name = 'webhooks';
