package store

import (
	"os"
	"path/filepath"
	"sort"
)

func runPrepare(a *args) (interface{}, error) {
	if err := checkImage(a); err != nil {
		return nil, err
	}
	if a.size <= 0 {
		return nil, fail("invalid", "--size must be a positive number of bytes")
	}
	out := map[string]interface{}{"created": false}
	if !exists(a.image) {
		if err := absPath("template", a.template); err != nil {
			return nil, err
		}
		fsid, err := createImage(a.template, a.image, a.size)
		if err != nil {
			return nil, err
		}
		out["created"], out["fsid"] = true, fsid
	} else if _, err := growImage(a.image, a.size); err != nil {
		return nil, err
	}
	n, err := findBacking(a.image)
	if err != nil {
		return nil, err
	}
	out["attached"] = n >= 0
	if n < 0 {
		if n, err = reserveLoop(a.prefer); err != nil {
			return nil, err
		}
	}
	out["loop"] = n
	return out, nil
}

func runInfo(a *args) (interface{}, error) {
	if err := absPath("top", a.top); err != nil {
		return nil, err
	}
	ok, err := isBtrfs(a.top)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fail("not_ready", "%s is not a btrfs filesystem (yet)", a.top)
	}
	size, used, err := fsSpace(a.top)
	if err != nil {
		return nil, err
	}
	_, quota, err := readQgroups(a.top)
	if err != nil {
		return nil, err
	}
	return map[string]interface{}{"size_bytes": size, "used_bytes": used, "quota": quota}, nil
}

func runCreate(a *args) (interface{}, error) {
	path, err := itemPath(a, "id", a.id)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fail("failed", "creating %s: %v", filepath.Dir(path), err)
	}
	if err := createSubvolume(filepath.Dir(path), a.id); err != nil {
		return nil, err
	}
	if err := applyQuota(a.top, path, a.quota); err != nil {
		return nil, err
	}
	return map[string]interface{}{"id": a.id}, nil
}

func runSnapshot(a *args) (interface{}, error) {
	src, err := itemPath(a, "source", a.source)
	if err != nil {
		return nil, err
	}
	dst, err := itemPath(a, "id", a.id)
	if err != nil {
		return nil, err
	}
	if err := requireSubvolume(src, a.source); err != nil {
		return nil, err
	}
	if err := snapshotSubvolume(src, filepath.Dir(dst), a.id, a.readOnly); err != nil {
		return nil, err
	}
	if err := applyQuota(a.top, dst, a.quota); err != nil {
		return nil, err
	}
	return map[string]interface{}{"id": a.id, "readonly": a.readOnly}, nil
}

func applyQuota(top, path string, bytes int64) error {
	if bytes <= 0 {
		return nil
	}
	if err := ensureQuota(top); err != nil {
		return err
	}
	id, err := subvolumeID(path)
	if err != nil {
		return err
	}
	return limitReferenced(top, id, uint64(bytes))
}

// ensureQuota turns qgroups on where they are off (a host's own btrfs: only once asked).
func ensureQuota(top string) error {
	if _, on, err := readQgroups(top); err != nil || on {
		return err
	}
	return enableQuota(top)
}

func runDelete(a *args) (interface{}, error) {
	path, err := itemPath(a, "id", a.id)
	if err != nil {
		return nil, err
	}
	ok, err := isSubvolume(path)
	if err != nil {
		return nil, err
	}
	if !ok {
		if exists(path) {
			return nil, fail("invalid", "%s is not a subvolume", a.id)
		}
		return map[string]interface{}{"deleted": false}, nil
	}
	if err := destroySubvolume(filepath.Dir(path), a.id); err != nil {
		return nil, err
	}
	return map[string]interface{}{"deleted": true}, nil
}

func runQuota(a *args) (interface{}, error) {
	path, err := itemPath(a, "id", a.id)
	if err != nil {
		return nil, err
	}
	if a.bytes < 0 {
		return nil, fail("invalid", "--bytes must be 0 (no quota) or a number of bytes")
	}
	if err := requireSubvolume(path, a.id); err != nil {
		return nil, err
	}
	if err := ensureQuota(a.top); err != nil {
		return nil, err
	}
	id, err := subvolumeID(path)
	if err != nil {
		return nil, err
	}
	if err := limitReferenced(a.top, id, uint64(a.bytes)); err != nil {
		return nil, err
	}
	return map[string]interface{}{"id": a.id, "bytes": a.bytes}, nil
}

type usageItem struct {
	Referenced uint64 `json:"referenced_bytes"`
	Exclusive  uint64 `json:"exclusive_bytes"`
}

func runUsage(a *args) (interface{}, error) {
	if err := absPath("top", a.top); err != nil {
		return nil, err
	}
	ids := []string(a.ids)
	for _, id := range ids {
		if err := checkID("ids", id); err != nil {
			return nil, err
		}
	}
	if err := ensureQuota(a.top); err != nil {
		return nil, err
	}
	if err := syncFs(a.top); err != nil {
		return nil, err
	}
	groups, _, err := readQgroups(a.top)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		if ids, err = listIDs(a.top); err != nil {
			return nil, err
		}
	}
	items := map[string]usageItem{}
	for _, id := range ids {
		path := filepath.Join(a.top, subvolDir, id)
		if ok, err := isSubvolume(path); err != nil || !ok {
			continue
		}
		sid, err := subvolumeID(path)
		if err != nil {
			return nil, err
		}
		g := groups[sid]
		items[id] = usageItem{Referenced: g.Referenced, Exclusive: g.Exclusive}
	}
	size, used, err := fsSpace(a.top)
	if err != nil {
		return nil, err
	}
	return map[string]interface{}{"items": items, "size_bytes": size, "used_bytes": used}, nil
}

func listIDs(top string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(top, subvolDir))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fail("failed", "listing %s: %v", filepath.Join(top, subvolDir), err)
	}
	var ids []string
	for _, e := range entries {
		if idPattern.MatchString(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	return ids, nil
}

type listItem struct {
	ID       string `json:"id"`
	ReadOnly bool   `json:"readonly"`
	Subvol   bool   `json:"subvolume"`
}

func runList(a *args) (interface{}, error) {
	if err := absPath("top", a.top); err != nil {
		return nil, err
	}
	ids, err := listIDs(a.top)
	if err != nil {
		return nil, err
	}
	items := []listItem{}
	for _, id := range ids {
		path := filepath.Join(a.top, subvolDir, id)
		sub, err := isSubvolume(path)
		if err != nil {
			return nil, err
		}
		item := listItem{ID: id, Subvol: sub}
		if sub {
			if item.ReadOnly, err = subvolumeReadOnly(path); err != nil {
				return nil, err
			}
		}
		items = append(items, item)
	}
	return map[string]interface{}{"items": items}, nil
}

func runGrow(a *args) (interface{}, error) {
	if err := checkImage(a); err != nil {
		return nil, err
	}
	if err := checkLoop(a); err != nil {
		return nil, err
	}
	if err := absPath("top", a.top); err != nil {
		return nil, err
	}
	if a.size <= 0 {
		return nil, fail("invalid", "--size must be a positive number of bytes")
	}
	if _, err := growImage(a.image, a.size); err != nil {
		return nil, err
	}
	if err := fitDevice(a.top, a.loop); err != nil {
		return nil, err
	}
	size, used, err := fsSpace(a.top)
	if err != nil {
		return nil, err
	}
	return map[string]interface{}{"size_bytes": size, "used_bytes": used}, nil
}

// fitDevice tells the loop device its file's size and grows the filesystem to it.
func fitDevice(top string, loop int) error {
	if err := refreshCapacity(loop); err != nil {
		return err
	}
	return resizeMax(top)
}

func runRelease(a *args) (interface{}, error) {
	if err := checkImage(a); err != nil {
		return nil, err
	}
	if err := checkLoop(a); err != nil {
		return nil, err
	}
	detached, removed, err := releaseLoop(a.loop, a.image)
	if err != nil {
		return nil, err
	}
	return map[string]interface{}{"detached": detached, "removed": removed}, nil
}

func runSync(a *args) (interface{}, error) {
	if err := absPath("top", a.top); err != nil {
		return nil, err
	}
	if err := syncFs(a.top); err != nil {
		return nil, err
	}
	if err := waitCleaner(a.top); err != nil {
		return nil, err
	}
	return map[string]interface{}{"synced": true}, nil
}
