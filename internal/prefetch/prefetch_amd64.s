#include "textflag.h"

// func Line(p unsafe.Pointer)
TEXT ·Line(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func Offsets(base unsafe.Pointer, offs []uint64)
TEXT ·Offsets(SB), NOSPLIT|NOFRAME, $0-32
	MOVQ base+0(FP), AX
	MOVQ offs_base+8(FP), BX
	MOVQ offs_len+16(FP), CX
	TESTQ CX, CX
	JEQ done
loop:
	MOVQ (BX), DX
	PREFETCHT0 (AX)(DX*1)
	ADDQ $8, BX
	DECQ CX
	JNE loop
done:
	RET
