package store

import (
	"testing"
	"unsafe"
)

// The request numbers <linux/btrfs.h> and <linux/loop.h> define (as the kernel computes them).
func TestIoctlNumbers(t *testing.T) {
	cases := map[string][2]uintptr{
		"BTRFS_IOC_RESIZE":            {iocResize, 0x50009403},
		"BTRFS_IOC_SYNC":              {iocSync, 0x9408},
		"BTRFS_IOC_SUBVOL_CREATE":     {iocSubvolCreate, 0x5000940e},
		"BTRFS_IOC_TREE_SEARCH":       {iocTreeSearch, 0xd0009411},
		"BTRFS_IOC_INO_LOOKUP":        {iocInoLookup, 0xd0009412},
		"BTRFS_IOC_SNAP_CREATE_V2":    {iocSnapCreateV2, 0x50009417},
		"BTRFS_IOC_SUBVOL_GETFLAGS":   {iocGetFlags, 0x80089419},
		"BTRFS_IOC_QUOTA_CTL":         {iocQuotaCtl, 0xc0109428},
		"BTRFS_IOC_QGROUP_LIMIT":      {iocQgroupLimit, 0x8030942b},
		"BTRFS_IOC_QUOTA_RESCAN_WAIT": {iocQuotaRescanWait, 0x942e},
		"BTRFS_IOC_SNAP_DESTROY_V2":   {iocSnapDestroyV2, 0x5000943f},
		"BTRFS_IOC_SUBVOL_SYNC_WAIT":  {iocSubvolSyncWait, 0x40109441},
	}
	for name, c := range cases {
		if c[0] != c[1] {
			t.Errorf("%s = %#x, want %#x", name, c[0], c[1])
		}
	}
}

func TestStructSizes(t *testing.T) {
	sizes := map[string][2]uintptr{
		"loop_info64":                   {unsafe.Sizeof(loopInfo64{}), 232},
		"loop_config":                   {unsafe.Sizeof(loopConfig{}), 304},
		"btrfs_ioctl_vol_args":          {unsafe.Sizeof(volArgs{}), 4096},
		"btrfs_ioctl_vol_args_v2":       {unsafe.Sizeof(volArgsV2{}), 4096},
		"btrfs_ioctl_search_args":       {unsafe.Sizeof(searchArgs{}), 4096},
		"btrfs_ioctl_search_key":        {unsafe.Sizeof(searchKey{}), 104},
		"btrfs_ioctl_ino_lookup_args":   {unsafe.Sizeof(inoLookupArgs{}), 4096},
		"btrfs_ioctl_qgroup_limit_args": {unsafe.Sizeof(qgroupLimitArgs{}), 48},
	}
	for name, c := range sizes {
		if c[0] != c[1] {
			t.Errorf("sizeof(%s) = %d, want %d", name, c[0], c[1])
		}
	}
}
