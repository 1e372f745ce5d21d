package store

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
)

const blockSize = 64 << 10

// createImage puts a new store image in place from the compressed empty filesystem made at
// build time: written sparse (zero blocks are skipped), given its own fsid, then sized. It is
// written beside and renamed, so a crash never leaves half an image under the real name.
func createImage(template, image string, size int64) (string, error) {
	in, err := os.Open(template)
	if err != nil {
		return "", fail("not_found", "the empty filesystem %s is missing: %v", template, err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		return "", fail("invalid", "the empty filesystem %s is not gzip: %v", template, err)
	}
	partial := image + ".partial"
	out, err := os.OpenFile(partial, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", fail("failed", "creating %s: %v", partial, err)
	}
	defer os.Remove(partial)
	written, err := copySparse(out, zr)
	if err == nil && size < written {
		err = fail("invalid", "the store size %d is smaller than the empty filesystem (%d bytes)", size, written)
	}
	if err == nil {
		err = out.Truncate(written)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", asOpError(err, "writing the image")
	}
	fsid, err := giveOwnFsid(partial)
	if err != nil {
		return "", err
	}
	if err := os.Truncate(partial, size); err != nil {
		return "", fail(errnoKind(err), "sizing %s: %v", partial, err)
	}
	if err := os.Rename(partial, image); err != nil {
		return "", fail("failed", "renaming %s: %v", partial, err)
	}
	if d, err := os.Open(filepath.Dir(image)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return uuidString(fsid), nil
}

func copySparse(out *os.File, in io.Reader) (int64, error) {
	buf := make([]byte, blockSize)
	zero := make([]byte, blockSize)
	var off int64
	for {
		n, err := io.ReadFull(in, buf)
		if n > 0 {
			if !bytes.Equal(buf[:n], zero[:n]) {
				if _, werr := out.WriteAt(buf[:n], off); werr != nil {
					return off, werr
				}
			}
			off += int64(n)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return off, nil
		}
		if err != nil {
			return off, err
		}
	}
}

// growImage makes the image file `size` bytes long (never shorter); answers whether it grew.
func growImage(image string, size int64) (bool, error) {
	info, err := os.Stat(image)
	if err != nil {
		return false, fail("not_found", "stat %s: %v", image, err)
	}
	if info.Size() >= size {
		return false, nil
	}
	if err := os.Truncate(image, size); err != nil {
		return false, fail(errnoKind(err), "growing %s: %v", image, err)
	}
	return true, nil
}
