#include "engine/memory/device_allocators.h"

#include <algorithm>

namespace engine::memory {

DeviceAllocators::DeviceAllocators(AllocatorConfig common, std::function<uint64_t(int)> capacityOf)
    : m_common(std::move(common))
    , m_capacityOf(std::move(capacityOf))
{
}

CachingAllocator& DeviceAllocators::at(int device)
{
    auto it = m_devices.find(device);
    if (it != m_devices.end())
        return *it->second;
    AllocatorConfig c = m_common;
    c.device = device;
    if (m_capacityOf)
        c.capacityBytes = m_capacityOf(device);
    return *m_devices.emplace(device, std::make_unique<CachingAllocator>(std::move(c))).first->second;
}

const CachingAllocator* DeviceAllocators::find(int device) const
{
    auto it = m_devices.find(device);
    return it == m_devices.end() ? nullptr : it->second.get();
}

std::vector<int> DeviceAllocators::devices() const
{
    std::vector<int> out;
    for (const auto& entry : m_devices)
        out.push_back(entry.first);
    return out;
}

std::vector<SegmentInfo> DeviceAllocators::segments() const
{
    std::vector<SegmentInfo> out;
    for (const auto& entry : m_devices) {
        std::vector<SegmentInfo> s = entry.second->segments();
        out.insert(out.end(), std::make_move_iterator(s.begin()), std::make_move_iterator(s.end()));
    }
    return out;
}

std::vector<PoolId> DeviceAllocators::pools() const
{
    std::vector<PoolId> out;
    for (const auto& entry : m_devices)
        for (const PoolId& p : entry.second->pools())
            if (std::find(out.begin(), out.end(), p) == out.end())
                out.push_back(p);
    std::sort(out.begin(), out.end());
    return out;
}

uint64_t DeviceAllocators::reservedBytes() const
{
    uint64_t total = 0;
    for (const auto& entry : m_devices)
        total += entry.second->reservedBytes();
    return total;
}

uint64_t DeviceAllocators::allocatedBytes() const
{
    uint64_t total = 0;
    for (const auto& entry : m_devices)
        total += entry.second->allocatedBytes();
    return total;
}

uint64_t DeviceAllocators::emptyCache()
{
    uint64_t released = 0;
    for (auto& entry : m_devices)
        released += entry.second->emptyCache();
    return released;
}

} // namespace engine::memory
