# sanswitch on the Opal Kelly XEM7010: Vivado batch build, from the files that
# `sanswitch generate --board xem7010 --out DIR` writes into DIR (top.v, top.xdc, this file).
#
#   cd DIR
#   vivado -mode batch -source build.tcl -tclargs /path/to/FrontPanelHDL/XEM7010-A50
#
# The argument is the FrontPanel SDK's HDL directory for the board (okLibrary.v and the
# okHost core's files: every .v, .vh, .edf and .ngc in it is read; its XDC is not, top.xdc
# holds the pins). The run stops with exit status 1 on negative setup or hold slack, after
# writing the reports; on success it writes top.bit. Part: XC7A50T-1FGG484.

if {$argc < 1} {
    puts "usage: vivado -mode batch -source build.tcl -tclargs <FrontPanel HDL directory>"
    exit 2
}
set fp_dir [lindex $argv 0]
set fp_files [glob -nocomplain -directory $fp_dir *.v *.vh *.edf *.ngc]
if {[llength $fp_files] == 0} {
    puts "error: no FrontPanel HDL (.v, .edf, .ngc) in $fp_dir"
    exit 2
}

create_project -in_memory -part xc7a50tfgg484-1
read_verilog top.v
foreach f $fp_files {
    if {[string match *.edf $f] || [string match *.ngc $f]} {
        read_edif $f
    } else {
        read_verilog $f
    }
}
read_xdc top.xdc

synth_design -top top -part xc7a50tfgg484-1
opt_design
place_design
phys_opt_design
route_design

report_utilization -file utilization.rpt
report_timing_summary -max_paths 20 -file timing.rpt
report_clock_interaction -file clocks.rpt

set wns [get_property SLACK [lindex [get_timing_paths -setup -max_paths 1 -nworst 1] 0]]
set whs [get_property SLACK [lindex [get_timing_paths -hold -max_paths 1 -nworst 1] 0]]
puts "worst setup slack: $wns ns, worst hold slack: $whs ns (timing.rpt)"
if {$wns < 0 || $whs < 0} {
    puts "error: negative slack: timing not met (see timing.rpt; 100 MHz: generate --engine-mhz 100)"
    exit 1
}

write_bitstream -force top.bit
puts "wrote top.bit"
exit 0
