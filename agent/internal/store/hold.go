package store

import (
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// runHold is the helper container's main process. With --image and --loop it attaches the
// image to that loop device and mounts the filesystem's top level at --top, inside the
// helper's own mount namespace (nothing is mounted on the host); without, --top must already
// be a directory on btrfs (the host's own filesystem, bind-mounted). It answers once ready
// (the core reads it from the container's output), then waits for SIGTERM and unmounts.
func runHold(a *args) (interface{}, error) {
	if err := absPath("top", a.top); err != nil {
		return nil, err
	}
	mounted := false
	if a.image != "" {
		if err := checkImage(a); err != nil {
			return nil, err
		}
		if err := checkLoop(a); err != nil {
			return nil, err
		}
		if err := mountImage(a); err != nil {
			return nil, err
		}
		mounted = true
	} else if ok, err := isBtrfs(a.top); err != nil {
		return nil, err
	} else if !ok {
		return nil, fail("unsupported", "%s is not on btrfs", a.top)
	}
	if err := os.MkdirAll(filepath.Join(a.top, subvolDir), 0o755); err != nil {
		return nil, fail("failed", "creating %s: %v", subvolDir, err)
	}
	size, used, err := fsSpace(a.top)
	if err != nil {
		return nil, err
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]interface{}{
		"ready": true, "size_bytes": size, "used_bytes": used,
	})
	wait := make(chan os.Signal, 1)
	signal.Notify(wait, syscall.SIGTERM, syscall.SIGINT)
	<-wait
	if mounted {
		// Lazily: a running operation finishes first. The loop clears itself (autoclear)
		// once no box's volume holds the filesystem either.
		_ = syscall.Unmount(a.top, syscall.MNT_DETACH)
	}
	return map[string]interface{}{"released": true}, nil
}

func mountImage(a *args) error {
	dev, err := attachLoop(a.loop, a.image)
	if err != nil {
		return err
	}
	defer syscall.Close(dev)
	if err := os.MkdirAll(a.top, 0o755); err != nil {
		return fail("failed", "creating %s: %v", a.top, err)
	}
	if err := syscall.Mount(loopPath(a.loop), a.top, "btrfs", 0, "subvolid=5"); err != nil {
		return fail(errnoKind(err), "mounting %s at %s: %v", loopPath(a.loop), a.top, err)
	}
	// The image may have grown since the filesystem was last sized (a larger --storage-size);
	// both calls are cheap when nothing changed.
	if err := fitDevice(a.top, a.loop); err != nil {
		return err
	}
	return enableQuota(a.top)
}
