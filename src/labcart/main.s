; puyolab -- the labcart: an open NES test cartridge that keeps its state at the
; RAM addresses of Famicom Puyo Puyo (see README.md).  Assemble with build.sh.

.include "defs.inc"

.segment "HEADER"
    .byte "NES", $1A
    .byte 1            ; 16 KiB PRG
    .byte 1            ; 8 KiB CHR
    .byte $01          ; mapper 0, vertical mirroring
    .byte $00
    .res 8, $00

.segment "VECTORS"
    .word nmi, reset, irq

.segment "CODE"

irq:
    rti

; ---------------------------------------------------------------- reset
reset:
    sei
    cld
    ldx #$40
    stx $4017
    ldx #$FF
    txs
    inx
    stx $2000
    stx $2001
    stx $4010
    bit $2002
@v1:
    bit $2002
    bpl @v1
    txa
@clr:
    sta $0000,x
    sta $0100,x
    sta $0300,x
    sta $0400,x
    sta $0500,x
    sta $0600,x
    sta $0700,x
    inx
    bne @clr
    jsr hide_sprites
@v2:
    bit $2002
    bpl @v2
    jsr load_palette
    lda #4
    sta NCOLORS
    lda #NUIS_CAP
    sta NCAP
    lda #NUIS_DROP
    sta NDROP
    lda #NUIS_POINTS / 10
    sta NRATE
    lda #NUIS_OVERFLOW
    sta NOVER
.if ITEMS_AT_BOOT
    lda #ITEMS_AT_BOOT
    sta ITEMOPT
.endif
    jsr enter_title
    lda #$80
    sta ctrl_sh
    sta $2000

main_loop:
    lda nmi_count
@wait:
    cmp nmi_count
    beq @wait
    lda #0
    sta bufpos
    sta VBUF
    jsr read_pads
    lda GSTATE
    asl
    tax
    lda state_tab+1,x
    pha
    lda state_tab,x
    pha
    rts                 ; jump to state handler (returns to main_end via rts below)
main_end:
    ldx bufpos
    lda #0
    sta VBUF,x
    lda #1
    sta nmi_ready
    jmp main_loop

state_tab:
    .word title_state-1, menu_state-1, play_state-1, over_state-1

; every state handler ends with "jmp main_end"

; ---------------------------------------------------------------- NMI
nmi:
    pha
    txa
    pha
    tya
    pha
    lda nmi_ready
    beq @skip
    lda #0
    sta $2003
    lda #>OAM
    sta $4014
    ldx #0
@run:
    ldy VBUF,x
    beq @done
    lda VBUF+1,x
    sta $2006
    lda VBUF+2,x
    sta $2006
    inx
    inx
    inx
@byte:
    lda VBUF,x
    sta $2007
    inx
    dey
    bne @byte
    beq @run
@done:
    lda ctrl_sh
    sta $2000
    lda #0
    sta $2005
    sta $2005
    lda mask_sh
    sta $2001
    lda #0
    sta nmi_ready
@skip:
    inc FRAMELO
    bne :+
    inc FRAMEHI
:
    inc nmi_count
    pla
    tay
    pla
    tax
    pla
    rti

; ---------------------------------------------------------------- pads
read_pads:
    lda PAD
    sta PADPREV
    lda PAD+1
    sta PADPREV+1
    lda #1
    sta $4016
    sta PAD+1
    lsr a
    sta $4016
@loop:
    lda $4016
    and #3
    cmp #1
    rol PAD
    lda $4017
    and #3
    cmp #1
    rol PAD+1
    bcc @loop
    ldx #1
@new:
    lda PADPREV,x
    eor #$FF
    and PAD,x
    sta PADNEW,x
    dex
    bpl @new
.if INPUT_LAG
    ; the falling piece sees the buttons of INPUT_LAG frames ago (menus and pause do not)
    ldx #1
@lag:
    lda LPAD,x
    eor #$FF
    sta tmp0                ; not held in the previous lagged frame
    lda PHIST + 2 * (INPUT_LAG - 1),x
    sta LPAD,x
    and tmp0
    sta LPADNEW,x
    .repeat INPUT_LAG - 1, I
    lda PHIST + 2 * (INPUT_LAG - 2 - I),x
    sta PHIST + 2 * (INPUT_LAG - 1 - I),x
    .endrepeat
    lda PAD,x
    sta PHIST,x
    dex
    bpl @lag
.endif
    rts

; ---------------------------------------------------------------- rng
; 16-bit xorshift (7,9,8) on the state at RNGLO+x/RNGHI+x (x = 0..3:
; 0/1 pair generators, 4/5 via NRNG offsets).  Returns the new low byte in A.
rng_next:
    lda RNGHI,x
    lsr a
    lda RNGLO,x
    ror a
    eor RNGHI,x
    sta RNGHI,x
    ror a
    eor RNGLO,x
    sta RNGLO,x
    eor RNGHI,x
    sta RNGHI,x
    lda RNGLO,x
    rts

; ---------------------------------------------------------------- helpers
; set ptr to player x's field
set_field:
    lda #0
    sta ptr
    txa
    clc
    adc #>FIELD1
    sta ptr+1
    rts

hide_sprites:
    ldx #0
    lda #$F0
@l:
    sta OAM,x
    inx
    bne @l
    rts

load_palette:
    lda $2002
    lda #$3F
    sta $2006
    lda #$00
    sta $2006
    ldx #0
@l:
    lda palette,x
    sta $2007
    inx
    cpx #32
    bne @l
    rts

palette:
    .byte $0F,$16,$1A,$30, $0F,$12,$28,$30, $0F,$14,$2C,$30, $0F,$00,$27,$30
    .byte $0F,$16,$1A,$30, $0F,$12,$28,$30, $0F,$14,$2C,$30, $0F,$00,$27,$30

.include "screen.s"
.include "menu.s"
.include "play.s"
.include "resolve.s"
.include "render.s"
.include "chr.s"
