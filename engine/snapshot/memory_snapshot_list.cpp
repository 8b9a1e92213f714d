// TraceList's chunks: 2 MiB aligned blocks of trace entries that ask the kernel for a huge page.
#include "engine/snapshot/memory_snapshot.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#ifdef __linux__
#include <sys/mman.h>
#endif

namespace engine::snapshot {

static_assert(std::is_trivially_copyable_v<TraceEntry> && std::is_trivially_destructible_v<TraceEntry>,
    "TraceList copies and frees its chunks as raw memory");

namespace {
constexpr size_t kChunkBytes = TraceList::kChunk * sizeof(TraceEntry);
} // namespace

void TraceList::FreeChunk::operator()(TraceEntry* p) const { std::free(p); }

TraceList::Chunk TraceList::newChunk()
{
    void* p = std::aligned_alloc(kChunkBytes, kChunkBytes);
    if (!p)
        throw std::bad_alloc(); // the reader turns running out of memory into an error
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Advice only: where transparent huge pages are off, the chunk is filled page by page.
    ::madvise(p, kChunkBytes, MADV_HUGEPAGE);
#endif
    return Chunk(static_cast<TraceEntry*>(p));
}

TraceList::TraceList(const TraceList& o)
    : m_size(o.m_size)
{
    for (size_t c = 0; c < o.m_chunks.size(); ++c) {
        m_chunks.emplace_back(newChunk());
        const size_t n = std::min(kChunk, o.m_size - c * kChunk);
        std::memcpy(static_cast<void*>(m_chunks.back().get()), o.m_chunks[c].get(), n * sizeof(TraceEntry));
    }
}

TraceList& TraceList::operator=(const TraceList& o)
{
    if (this != &o) {
        TraceList copy(o);
        *this = std::move(copy);
    }
    return *this;
}

} // namespace engine::snapshot
