// Placeholder until the disassembler lands.
#include "engine/marshal/disassembler.h"

namespace engine::marshal {

VersionGuess guessVersion(const Document&)
{
    return {};
}

Result<std::vector<Instruction>> disassemble(const Document&, uint32_t, PyVersion)
{
    return Error { ErrorCode::Internal, "disassembler not built yet", "" };
}

Result<std::string> disListing(const Document&, PyVersion)
{
    return Error { ErrorCode::Internal, "disassembler not built yet", "" };
}

const std::vector<std::string>& opcodeNames(PyVersion)
{
    static const std::vector<std::string> none(256);
    return none;
}

} // namespace engine::marshal
