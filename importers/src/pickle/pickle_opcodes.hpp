// The opcodes of pickle protocols 0 to 5, as Python's Lib/pickletools.py
// documents them.
#pragma once

#include <cstdint>

namespace parity::importers::pickle_op {

constexpr std::uint8_t kMark = '(';
constexpr std::uint8_t kStop = '.';
constexpr std::uint8_t kPop = '0';
constexpr std::uint8_t kPopMark = '1';
constexpr std::uint8_t kDup = '2';
constexpr std::uint8_t kFloat = 'F';
constexpr std::uint8_t kInt = 'I';
constexpr std::uint8_t kBinInt = 'J';
constexpr std::uint8_t kBinInt1 = 'K';
constexpr std::uint8_t kLong = 'L';
constexpr std::uint8_t kBinInt2 = 'M';
constexpr std::uint8_t kNone = 'N';
constexpr std::uint8_t kPersId = 'P';
constexpr std::uint8_t kBinPersId = 'Q';
constexpr std::uint8_t kReduce = 'R';
constexpr std::uint8_t kString = 'S';
constexpr std::uint8_t kBinString = 'T';
constexpr std::uint8_t kShortBinString = 'U';
constexpr std::uint8_t kUnicode = 'V';
constexpr std::uint8_t kBinUnicode = 'X';
constexpr std::uint8_t kAppend = 'a';
constexpr std::uint8_t kBuild = 'b';
constexpr std::uint8_t kGlobal = 'c';
constexpr std::uint8_t kDict = 'd';
constexpr std::uint8_t kEmptyDict = '}';
constexpr std::uint8_t kAppends = 'e';
constexpr std::uint8_t kGet = 'g';
constexpr std::uint8_t kBinGet = 'h';
constexpr std::uint8_t kInst = 'i';
constexpr std::uint8_t kLongBinGet = 'j';
constexpr std::uint8_t kList = 'l';
constexpr std::uint8_t kEmptyList = ']';
constexpr std::uint8_t kObj = 'o';
constexpr std::uint8_t kPut = 'p';
constexpr std::uint8_t kBinPut = 'q';
constexpr std::uint8_t kLongBinPut = 'r';
constexpr std::uint8_t kSetItem = 's';
constexpr std::uint8_t kTuple = 't';
constexpr std::uint8_t kEmptyTuple = ')';
constexpr std::uint8_t kSetItems = 'u';
constexpr std::uint8_t kBinFloat = 'G';
// Protocol 2.
constexpr std::uint8_t kProto = 0x80;
constexpr std::uint8_t kNewObj = 0x81;
constexpr std::uint8_t kExt1 = 0x82;
constexpr std::uint8_t kExt2 = 0x83;
constexpr std::uint8_t kExt4 = 0x84;
constexpr std::uint8_t kTuple1 = 0x85;
constexpr std::uint8_t kTuple2 = 0x86;
constexpr std::uint8_t kTuple3 = 0x87;
constexpr std::uint8_t kNewTrue = 0x88;
constexpr std::uint8_t kNewFalse = 0x89;
constexpr std::uint8_t kLong1 = 0x8a;
constexpr std::uint8_t kLong4 = 0x8b;
// Protocol 3.
constexpr std::uint8_t kBinBytes = 'B';
constexpr std::uint8_t kShortBinBytes = 'C';
// Protocol 4.
constexpr std::uint8_t kShortBinUnicode = 0x8c;
constexpr std::uint8_t kBinUnicode8 = 0x8d;
constexpr std::uint8_t kBinBytes8 = 0x8e;
constexpr std::uint8_t kEmptySet = 0x8f;
constexpr std::uint8_t kAddItems = 0x90;
constexpr std::uint8_t kFrozenSet = 0x91;
constexpr std::uint8_t kNewObjEx = 0x92;
constexpr std::uint8_t kStackGlobal = 0x93;
constexpr std::uint8_t kMemoize = 0x94;
constexpr std::uint8_t kFrame = 0x95;
// Protocol 5.
constexpr std::uint8_t kByteArray8 = 0x96;
constexpr std::uint8_t kNextBuffer = 0x97;
constexpr std::uint8_t kReadOnlyBuffer = 0x98;

inline constexpr int kHighestProtocol = 5;

}  // namespace parity::importers::pickle_op
