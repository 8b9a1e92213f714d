#pragma once
/// The opcode tables of CPython 3.8 to 3.13 as the disassembler needs them (internal to
/// engine/marshal): each byte's name, whether it takes an argument, its inline cache entries (3.11+),
/// which of dis's lists it is in (hasconst, hasname, ...), and the opcodes whose argument dis prints
/// in its own way. Written from each version's Lib/opcode.py and checked against the interpreters'
/// `opcode` modules by tests/engine/marshal_reader_test.cpp (tests/data/marshal/opcodes.py3X.txt).
#include "engine/marshal/marshal_reader.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace engine::marshal::detail {

/// dis's opcode lists an opcode is in.
enum OpList : uint8_t {
    kHasConst = 1,
    kHasName = 2,
    kHasJrel = 4,
    kHasJabs = 8,
    kHasLocal = 16,
    kHasFree = 32,
    kHasCompare = 64,
};

/// Opcodes whose argument dis prints in a way of its own.
enum class Special : uint8_t {
    None,
    ExtendedArg,
    LoadGlobal, ///< name index arg>>1, "NULL + " (3.11+)
    LoadAttr, ///< 3.12+: name index arg>>1, "NULL|self + "
    LoadSuperAttr, ///< 3.12+: name index arg>>2
    FormatValue,
    MakeFunction, ///< flags (before 3.13)
    SetFunctionAttribute, ///< 3.13: the same flags
    BinaryOp, ///< 3.11+: the operator
    Intrinsic1,
    Intrinsic2,
    ConvertValue, ///< 3.13
    FastPair, ///< 3.13: two local indices in one argument
    KwNames, ///< 3.11/3.12
    Resume,
    Cache,
};

struct OpInfo {
    std::string name; ///< empty: no opcode of that version
    bool hasArg = false;
    bool backward = false; ///< a relative jump backwards (3.11+)
    bool marshallable = false; ///< can stand in code marshal writes (not CACHE, instrumented, executor, ...)
    uint8_t caches = 0;
    uint8_t lists = 0; ///< OpList bits
    Special special = Special::None;
};

struct OpTable {
    PyVersion version;
    std::array<OpInfo, 256> ops;
    std::vector<std::string> names; ///< opcodeNames(): the name of each byte, empty where none
    std::vector<std::string> cmpOp; ///< dis.cmp_op
    std::vector<std::string> nbOps; ///< 3.11+: BINARY_OP's operators
    std::vector<std::string> intrinsic1, intrinsic2; ///< 3.12+
};

/// The table of a supported version (supportedVersions()); nullptr for any other.
const OpTable* opTable(PyVersion version);

} // namespace engine::marshal::detail
