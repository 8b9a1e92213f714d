#pragma once
/// A safe, static reader of Python pickles (protocols 0 to 5): it decodes the opcodes into a
/// pickle::Document (pickle_document.h) and never imports or calls anything. GLOBAL, STACK_GLOBAL,
/// INST, OBJ, REDUCE, NEWOBJ, NEWOBJ_EX and BUILD become inert Global / Object values that name
/// the class; every class outside an allow-list is reported as a Finding (TorchAir's strict
/// unpickler would refuse the file), PERSID/BINPERSID and EXT1/2/4 too.
///
/// Hostile input gets an Error, never a crash, a hang or unbounded memory: reading is one pass,
/// linear in the input, memory is a small multiple of it, and Limits caps the rest. An error names
/// the file and the byte offset and name of the offending opcode:
/// `compiled_module: offset 1234: truncated BINUNICODE (needs 4000 bytes, 12 left)`.
/// Out-of-band buffers (protocol 5's NEXT_BUFFER / READONLY_BUFFER) are refused.
#include "engine/core/result.h"
#include "engine/pickle/pickle_document.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engine::pickle {

struct Limits {
    uint64_t maxBytes = uint64_t(4) << 30; ///< input size
    uint32_t maxDepth = 1000; ///< nesting of values (a depth bomb); Python's recursion limit
    uint64_t maxMemo = uint64_t(1) << 28; ///< distinct memo entries
    uint64_t maxValues = uint64_t(1) << 30; ///< decoded values (16 bytes each)
    uint64_t maxStack = uint64_t(1) << 28; ///< entries on the unpickling stack plus marks
    /// Digits of a protocol-0 INT/LONG literal: converting text to binary is quadratic, and Python
    /// (3.11+) refuses more than 4300 as well.
    uint32_t maxIntDigits = 4300;
};

/// Classes a strict unpickler accepts. An entry whose name is "*" accepts the whole module.
struct AllowList {
    std::vector<std::pair<std::string, std::string>> classes;

    bool allows(std::string_view module, std::string_view name) const;

    /// TorchAir's `_StrictModelUnpickler`: torchair.inference._cache_compiler.{ModelCacheMeta,
    /// CompiledFX, ModelCacheArtifact}.
    static AllowList torchair();
    /// npugraph_ex's: npugraph_ex.inference._cache_compiler.* (the same three classes).
    static AllowList npugraphEx();
};

struct ReadOptions {
    Limits limits;
    /// The classes that are not findings; nullptr: every class reference is one.
    const AllowList* allow = nullptr;
    /// Called about every 16 MiB with (bytes read, total); returning false cancels the read (an
    /// error "cancelled"). May be empty.
    std::function<bool(uint64_t done, uint64_t total)> progress;
};

/// Reads one pickle from `bytes` (up to its STOP; trailing bytes are a warning). `path` names the
/// input in errors and warnings.
Result<Document> readPickle(std::string_view bytes, const std::string& path, const ReadOptions& options = {});

/// Reads the file (refused when larger than options.limits.maxBytes) and then readPickle.
Result<Document> readPickleFile(const std::string& path, const ReadOptions& options = {});

/// The name of an opcode byte ("BINUNICODE"), or empty for a byte that is no opcode.
std::string_view opcodeName(uint8_t op);

} // namespace engine::pickle
