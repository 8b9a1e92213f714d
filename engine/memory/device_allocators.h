#pragma once
/// The caching allocators of every device a run uses: torch_npu keeps one DeviceCachingAllocator per
/// device, each with its own default pool, private pools and capacity (npu-caching-allocator.md: a
/// private pool belongs to one device). Device d's allocator is made on first use from a common
/// AllocatorConfig and that device's capacity; its addresses lie in its own range, so an address
/// names its device (deviceOfAddress). Not thread-safe, like the allocators it holds.
#include "engine/memory/caching_allocator.h"

#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace engine::memory {

class DeviceAllocators {
public:
    /// `common`'s device and capacity are replaced per device; `capacityOf(d)` gives device d's
    /// capacity (empty: common.capacityBytes for every device).
    explicit DeviceAllocators(AllocatorConfig common, std::function<uint64_t(int)> capacityOf = {});

    /// Device `device`'s allocator, made on first use.
    CachingAllocator& at(int device);
    /// The allocator that owns `address` (made on first use).
    CachingAllocator& owning(uint64_t address) { return at(deviceOfAddress(address)); }
    /// Device `device`'s allocator if it was ever used, else null.
    const CachingAllocator* find(int device) const;
    /// Every device used so far, ascending.
    std::vector<int> devices() const;
    /// Segments of every device, device by device in index order, each in address order (the order
    /// torch.npu.memory_snapshot() lists them in).
    std::vector<SegmentInfo> segments() const;
    /// Every pool of every device (a pool id used on two devices appears once).
    std::vector<PoolId> pools() const;
    uint64_t reservedBytes() const; ///< all devices together
    uint64_t allocatedBytes() const;
    /// empty_cache on every device used (torch.npu.empty_cache() does so); returns the bytes released.
    uint64_t emptyCache();

private:
    AllocatorConfig m_common;
    std::function<uint64_t(int)> m_capacityOf;
    std::map<int, std::unique_ptr<CachingAllocator>> m_devices;
};

} // namespace engine::memory
