package kittest

import "encoding/binary"

// zstdBomb returns a zstd frame (RFC 8878) that decodes to n zeros (n
// rounded up to 128 KiB): RLE blocks of 128 KiB, four bytes each, in a
// frame with a 128 KiB window and no content size.
func zstdBomb(n int64) []byte {
	const block = 128 << 10
	blocks := max((n+block-1)/block, 1)
	out := make([]byte, 0, 6+4*blocks)
	out = binary.LittleEndian.AppendUint32(out, 0xFD2FB528) // magic number
	out = append(out, 0x00)                                 // no content size, no checksum, a window descriptor
	out = append(out, 7<<3)                                 // window: 2^(10+7) = 128 KiB
	for i := int64(0); i < blocks; i++ {
		h := uint32(1<<1 | block<<3) // an RLE block of 128 KiB
		if i == blocks-1 {
			h |= 1 // the last block
		}
		out = append(out, byte(h), byte(h>>8), byte(h>>16), 0x00)
	}
	return out
}
