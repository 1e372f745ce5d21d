package store

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"hash/crc32"
	"os"
)

// Every install starts from the same empty filesystem made at build time, so every image
// would carry the same fsid. Two of them attached at once on one host (two data dirs,
// parallel tests) then look like one filesystem to the kernel: before 6.7 the second mount
// is refused, and from 6.7 it is mounted under a temporary fsid only. So each image gets
// its own fsid when it is put in place, the way `btrfstune -m` does it: the superblock's
// fsid becomes a fresh one and the original moves to metadata_uuid (tree blocks keep it),
// under the METADATA_UUID incompat flag. Only the superblock copies change.
const (
	superSize            = 4096
	superFsid            = 0x20
	superMagicOff        = 0x40
	superIncompat        = 0xbc
	superCsumType        = 0xc4
	superMetadataUUID    = 0x23b
	incompatMetadataUUID = 1 << 10
)

var superOffsets = []int64{64 << 10, 64 << 20, 256 << 30}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// giveOwnFsid writes a fresh fsid into every superblock copy the image holds; answers it.
func giveOwnFsid(image string) ([16]byte, error) {
	var fsid [16]byte
	if _, err := rand.Read(fsid[:]); err != nil {
		return fsid, fail("failed", "no randomness for an fsid: %v", err)
	}
	fsid[6] = fsid[6]&0x0f | 0x40 // a version 4 UUID
	fsid[8] = fsid[8]&0x3f | 0x80
	f, err := os.OpenFile(image, os.O_RDWR, 0)
	if err != nil {
		return fsid, fail("failed", "opening %s: %v", image, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fsid, fail("failed", "stat %s: %v", image, err)
	}
	patched := 0
	for _, off := range superOffsets {
		if off+superSize > info.Size() {
			break
		}
		sb := make([]byte, superSize)
		if _, err := f.ReadAt(sb, off); err != nil {
			return fsid, fail("failed", "reading the superblock at %d: %v", off, err)
		}
		if !bytes.Equal(sb[superMagicOff:superMagicOff+8], []byte("_BHRfS_M")) {
			if off == superOffsets[0] {
				return fsid, fail("invalid", "%s holds no btrfs superblock", image)
			}
			continue
		}
		if binary.LittleEndian.Uint16(sb[superCsumType:]) != 0 {
			return fsid, fail("unsupported", "the image's checksum is not crc32c")
		}
		incompat := binary.LittleEndian.Uint64(sb[superIncompat:])
		if incompat&incompatMetadataUUID == 0 {
			copy(sb[superMetadataUUID:superMetadataUUID+16], sb[superFsid:superFsid+16])
			binary.LittleEndian.PutUint64(sb[superIncompat:], incompat|incompatMetadataUUID)
		}
		copy(sb[superFsid:superFsid+16], fsid[:])
		for i := 0; i < 32; i++ {
			sb[i] = 0
		}
		binary.LittleEndian.PutUint32(sb[0:], crc32.Checksum(sb[32:], castagnoli))
		if _, err := f.WriteAt(sb, off); err != nil {
			return fsid, fail("failed", "writing the superblock at %d: %v", off, err)
		}
		patched++
	}
	if err := f.Sync(); err != nil {
		return fsid, fail("failed", "syncing %s: %v", image, err)
	}
	if patched == 0 {
		return fsid, fail("invalid", "%s holds no btrfs superblock", image)
	}
	return fsid, nil
}

func uuidString(u [16]byte) string {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, b := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[b>>4], hex[b&15])
	}
	return string(out)
}
