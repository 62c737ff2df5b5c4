package pipelinestore

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// S3 is a BlobStore in a bucket of an S3-compatible object store.
type S3 struct {
	c      *minio.Client
	bucket string
	prefix string // before every key: the URL's path, with a trailing slash
}

var _ BlobStore = (*S3)(nil)

// OpenS3 returns the BlobStore named by rawURL,
// s3://BUCKET[/PREFIX]?endpoint=http://HOST:PORT&region=REGION, whose
// requests are signed with accessKey and secretKey. endpoint defaults
// to AWS (https://s3.amazonaws.com); without region the bucket's is
// asked for. A PREFIX keeps the keys under it, so that programs may
// share a bucket. It does not reach the store: see Check.
func OpenS3(rawURL, accessKey, secretKey string) (*S3, error) {
	u, err := url.Parse(rawURL)
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		err = ue.Err // without the URL, which may hold a secret
	}
	if err != nil {
		return nil, fmt.Errorf("S3 URL: %w", err)
	}
	if u.Scheme != "s3" || u.Host == "" {
		return nil, errors.New("S3 URL: want s3://BUCKET?endpoint=http://HOST:PORT&region=REGION")
	}
	if u.User != nil || u.Fragment != "" {
		return nil, errors.New("S3 URL: credentials go in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, not the URL")
	}
	q := u.Query()
	for k := range q {
		if k != "endpoint" && k != "region" {
			return nil, fmt.Errorf("S3 URL: unknown parameter %q (endpoint and region are known)", k)
		}
	}
	endpoint, err := url.Parse(cmp.Or(q.Get("endpoint"), "https://s3.amazonaws.com"))
	if err != nil || (endpoint.Scheme != "http" && endpoint.Scheme != "https") || endpoint.Host == "" ||
		strings.Trim(endpoint.Path, "/") != "" || endpoint.RawQuery != "" {
		return nil, fmt.Errorf("S3 URL: endpoint %q is not http(s)://HOST[:PORT]", q.Get("endpoint"))
	}
	if accessKey == "" || secretKey == "" {
		return nil, errors.New("S3 URL: an S3 store needs an access key id and a secret access key (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
	}
	c, err := minio.New(endpoint.Host, &minio.Options{
		Creds:  credentials.NewStaticV4(accessKey, secretKey, ""),
		Secure: endpoint.Scheme == "https",
		Region: q.Get("region"),
		// Path-style requests: a bucket name need not be a host name of
		// the endpoint, as with most servers that are not AWS.
		BucketLookup: minio.BucketLookupPath,
	})
	if err != nil {
		return nil, fmt.Errorf("S3 URL: %w", err)
	}
	s := &S3{c: c, bucket: u.Host}
	if p := strings.Trim(u.Path, "/"); p != "" {
		s.prefix = p + "/"
	}
	return s, nil
}

// Check reports an error when the bucket cannot be reached with the
// credentials given, or does not exist.
func (s *S3) Check(ctx context.Context) error {
	ok, err := s.c.BucketExists(ctx, s.bucket)
	if err != nil {
		return fmt.Errorf("S3 bucket %s: %w", s.bucket, err)
	}
	if !ok {
		return fmt.Errorf("S3 bucket %s does not exist", s.bucket)
	}
	return nil
}

// Put stores content under key; once it returns, the store holds it.
func (s *S3) Put(ctx context.Context, key string, content []byte) error {
	_, err := s.c.PutObject(ctx, s.bucket, s.prefix+key, bytes.NewReader(content), int64(len(content)),
		minio.PutObjectOptions{ContentType: "application/octet-stream", SendContentMd5: true})
	if err != nil {
		return fmt.Errorf("S3 put %s: %w", key, err)
	}
	return nil
}

// Open returns the bytes under key, read from the store as they are
// read; not_found when there are none.
func (s *S3) Open(ctx context.Context, key string) (pipeline.Content, error) {
	obj, err := s.c.GetObject(ctx, s.bucket, s.prefix+key, minio.GetObjectOptions{})
	if err == nil {
		// GetObject sends nothing: Stat makes the request, and tells a
		// missing object.
		_, err = obj.Stat()
	}
	if err != nil {
		if obj != nil {
			obj.Close()
		}
		if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
			return nil, pipeline.Errorf(pipeline.ENotFound, "Document not found.")
		}
		return nil, fmt.Errorf("S3 get %s: %w", key, err)
	}
	return obj, nil
}

// Remove deletes the bytes under key; none there is no error.
func (s *S3) Remove(ctx context.Context, key string) error {
	if err := s.c.RemoveObject(ctx, s.bucket, s.prefix+key, minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("S3 remove %s: %w", key, err)
	}
	return nil
}

// List yields every key below prefix with the time it was written.
func (s *S3) List(ctx context.Context, prefix string) iter.Seq2[BlobInfo, error] {
	return func(yield func(BlobInfo, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // stops the listing when the caller stops early
		for o := range s.c.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true}) {
			if o.Err != nil {
				yield(BlobInfo{}, fmt.Errorf("S3 list %s: %w", prefix, o.Err))
				return
			}
			if !yield(BlobInfo{Key: strings.TrimPrefix(o.Key, s.prefix), Modified: o.LastModified}, nil) {
				return
			}
		}
	}
}
