#include "engine/pickle/pickle_opcodes.h"

#include "engine/pickle/pickle_reader.h"

#include <array>

namespace engine::pickle {

namespace {

struct OpInfo {
    const char* name = nullptr;
    int protocol = -1;
};

constexpr std::array<OpInfo, 256> makeTable()
{
    using namespace detail;
    std::array<OpInfo, 256> t {};
    auto set = [&t](Op op, const char* name, int protocol) { t[op] = OpInfo { name, protocol }; };
    set(MARK, "MARK", 0);
    set(STOP, "STOP", 0);
    set(POP, "POP", 0);
    set(POP_MARK, "POP_MARK", 1);
    set(DUP, "DUP", 0);
    set(FLOAT, "FLOAT", 0);
    set(INT, "INT", 0);
    set(BININT, "BININT", 1);
    set(BININT1, "BININT1", 1);
    set(LONG, "LONG", 0);
    set(BININT2, "BININT2", 1);
    set(NONE, "NONE", 0);
    set(PERSID, "PERSID", 0);
    set(BINPERSID, "BINPERSID", 1);
    set(REDUCE, "REDUCE", 0);
    set(STRING, "STRING", 0);
    set(BINSTRING, "BINSTRING", 1);
    set(SHORT_BINSTRING, "SHORT_BINSTRING", 1);
    set(UNICODE, "UNICODE", 0);
    set(BINUNICODE, "BINUNICODE", 1);
    set(APPEND, "APPEND", 0);
    set(BUILD, "BUILD", 0);
    set(GLOBAL, "GLOBAL", 0);
    set(DICT, "DICT", 0);
    set(EMPTY_DICT, "EMPTY_DICT", 1);
    set(APPENDS, "APPENDS", 1);
    set(GET, "GET", 0);
    set(BINGET, "BINGET", 1);
    set(INST, "INST", 0);
    set(LONG_BINGET, "LONG_BINGET", 1);
    set(LIST, "LIST", 0);
    set(EMPTY_LIST, "EMPTY_LIST", 1);
    set(OBJ, "OBJ", 1);
    set(PUT, "PUT", 0);
    set(BINPUT, "BINPUT", 1);
    set(LONG_BINPUT, "LONG_BINPUT", 1);
    set(SETITEM, "SETITEM", 0);
    set(TUPLE, "TUPLE", 0);
    set(EMPTY_TUPLE, "EMPTY_TUPLE", 1);
    set(SETITEMS, "SETITEMS", 1);
    set(BINFLOAT, "BINFLOAT", 1);
    set(PROTO, "PROTO", 2);
    set(NEWOBJ, "NEWOBJ", 2);
    set(EXT1, "EXT1", 2);
    set(EXT2, "EXT2", 2);
    set(EXT4, "EXT4", 2);
    set(TUPLE1, "TUPLE1", 2);
    set(TUPLE2, "TUPLE2", 2);
    set(TUPLE3, "TUPLE3", 2);
    set(NEWTRUE, "NEWTRUE", 2);
    set(NEWFALSE, "NEWFALSE", 2);
    set(LONG1, "LONG1", 2);
    set(LONG4, "LONG4", 2);
    set(BINBYTES, "BINBYTES", 3);
    set(SHORT_BINBYTES, "SHORT_BINBYTES", 3);
    set(SHORT_BINUNICODE, "SHORT_BINUNICODE", 4);
    set(BINUNICODE8, "BINUNICODE8", 4);
    set(BINBYTES8, "BINBYTES8", 4);
    set(EMPTY_SET, "EMPTY_SET", 4);
    set(ADDITEMS, "ADDITEMS", 4);
    set(FROZENSET, "FROZENSET", 4);
    set(NEWOBJ_EX, "NEWOBJ_EX", 4);
    set(STACK_GLOBAL, "STACK_GLOBAL", 4);
    set(MEMOIZE, "MEMOIZE", 4);
    set(FRAME, "FRAME", 4);
    set(BYTEARRAY8, "BYTEARRAY8", 5);
    set(NEXT_BUFFER, "NEXT_BUFFER", 5);
    set(READONLY_BUFFER, "READONLY_BUFFER", 5);
    return t;
}

constexpr std::array<OpInfo, 256> kOps = makeTable();

} // namespace

std::string_view opcodeName(uint8_t op)
{
    return kOps[op].name ? std::string_view(kOps[op].name) : std::string_view();
}

namespace detail {

int opcodeProtocol(uint8_t op)
{
    return kOps[op].protocol;
}

} // namespace detail

} // namespace engine::pickle
