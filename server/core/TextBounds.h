#pragma once
// Bounds for text that came from a client and goes somewhere else: into an error message (which
// travels back in gRPC trailing metadata, where a few KB already fail the call), into the audit
// log (one JSON line per record), or onto an operator's screen (where control and bidi
// characters can hide or reorder what a record says).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace watchfloor::server {

// The longest prefix of `text` of at most `max` bytes that does not split a UTF-8 sequence.
inline std::size_t utf8Prefix(std::string_view text, std::size_t max) {
    if (text.size() <= max) return text.size();
    std::size_t end = max;
    // Step back over continuation bytes (10xxxxxx) to the start of the cut sequence.
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    return end;
}

// `text` when it fits in `max` bytes, else its start and "...[truncated, N bytes]" (N the
// original length), so a reader sees that and how much was cut.
inline std::string truncatedWithMarker(std::string_view text, std::size_t max) {
    if (text.size() <= max) return std::string(text);
    return std::string(text.substr(0, utf8Prefix(text, max))) + "...[truncated, " + std::to_string(text.size()) +
           " bytes]";
}

// A client-sent name quoted in an error message: at most 64 characters' worth of it.
inline std::string quotedForMessage(std::string_view text) {
    constexpr std::size_t kMaxEchoed = 64;
    return "'" + truncatedWithMarker(text, kMaxEchoed) + "'";
}

inline constexpr char32_t kInvalidUtf8 = 0x110000;  // past the last code point

// Decodes the code point at text[i] (advancing i); kInvalidUtf8 and one byte for invalid UTF-8.
inline char32_t nextCodePoint(std::string_view text, std::size_t& i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    const std::size_t length = lead < 0x80           ? 1
                               : (lead >> 5) == 0x6  ? 2
                               : (lead >> 4) == 0xE  ? 3
                               : (lead >> 3) == 0x1E ? 4
                                                     : 0;
    if (length == 0 || i + length > text.size()) {
        ++i;
        return kInvalidUtf8;
    }
    char32_t cp = length == 1 ? lead : lead & (0x7F >> length);
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) {
            ++i;
            return kInvalidUtf8;
        }
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    i += length;
    return cp;
}

// Characters that make one line of text pose as several, hide text, or reorder it on screen:
// C0 controls (NUL, ESC, CR, LF, TAB ...), DEL, C1 controls, the line and paragraph separators,
// and the bidirectional embeddings, overrides and isolates.
inline bool isHostileCharacter(char32_t cp) {
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == kInvalidUtf8;
}

// "U+001B at byte 4" for the first hostile character (or invalid UTF-8) in `text`; nullopt if none.
inline std::optional<std::string> firstHostileCharacter(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t at = i;
        const char32_t cp = nextCodePoint(text, i);
        if (!isHostileCharacter(cp)) continue;
        char code[16];
        std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(cp));
        return std::string(cp == kInvalidUtf8 ? "invalid UTF-8" : code) + " at byte " + std::to_string(at);
    }
    return std::nullopt;
}

}  // namespace watchfloor::server
