#pragma once
/// MD5 (RFC 1321), for TorchAir's compile-cache folder names (`hashlib.md5(...).hexdigest()`).
/// Not for security: TorchAir uses it as a content key, and so do we.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace engine {

class Md5 {
public:
    Md5();
    void update(std::string_view data);
    std::array<uint8_t, 16> digest(); ///< finishes; call once
    std::string hexDigest(); ///< finishes; 32 lower-case hex digits, as hashlib's hexdigest()

private:
    void block(const uint8_t* p);
    uint32_t m_state[4];
    uint64_t m_length = 0; ///< bytes so far
    uint8_t m_buffer[64];
    size_t m_buffered = 0;
};

/// hashlib.md5(data).hexdigest()
std::string md5Hex(std::string_view data);

} // namespace engine
