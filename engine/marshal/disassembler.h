#pragma once
/// Our own disassembler of CPython 3.8-3.13 bytecode (code objects from marshal_reader.h), with
/// opcode tables per version. The listing follows `dis.dis` of that version (line numbers, offsets,
/// jump-target marks `>>`, argument reprs, nested code objects after their parent) so that our
/// `readable_cache` output reads like TorchAir's.
#include "engine/core/result.h"
#include "engine/marshal/marshal_reader.h"

#include <cstdint>
#include <string>
#include <vector>

namespace engine::marshal {

struct Instruction {
    uint32_t offset = 0; ///< byte offset in co_code
    int line = -1; ///< source line, -1 when none
    bool startsLine = false;
    bool jumpTarget = false;
    uint16_t opcode = 0;
    std::string opname; ///< "LOAD_GLOBAL"; "<N>" for a byte unknown to the version
    int64_t arg = -1; ///< the full argument (EXTENDED_ARG folded in), -1 without one
    std::string argRepr; ///< what dis prints in parentheses, e.g. "NULL + __compiled_fn_1"
    int label = 0; ///< 3.13: the label dis prints ("L3:") when this is a jump target, else 0
    uint16_t caches = 0; ///< 3.11+: inline CACHE code units after the instruction (dis hides them)
};

/// The versions whose bytecode and layout fit the code objects, best first, with the reason.
/// Marshal data carries no version: the layout separates 3.8-3.10 from 3.11+, and within each the
/// opcodes and arguments that decode validly (known opcodes, indices in range, cache entries) pick
/// the candidates. Several candidates mean their listings may differ only where the code does not go.
struct VersionGuess {
    std::vector<PyVersion> candidates;
    std::string reason;
};
VersionGuess guessVersion(const Document& doc);

/// The instructions of `doc.codes[code]` under `version`'s opcode table.
Result<std::vector<Instruction>> disassemble(const Document& doc, uint32_t code, PyVersion version);

/// `dis.dis`-like listing of the root code object and, after it, every nested code object
/// ("Disassembly of <code object ...>:"), as that Python version prints it.
Result<std::string> disListing(const Document& doc, PyVersion version);

/// The opcode table of a version: the name of each byte (empty where none).
const std::vector<std::string>& opcodeNames(PyVersion version);

} // namespace engine::marshal
